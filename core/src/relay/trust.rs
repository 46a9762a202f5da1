//! Trust policy (rule I3, I5): what a recipient pre-authorizes per sender, from `trust.yaml`.
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Rules for one sender (or the default); every field optional, missing ones inherit.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct TrustRules {
    /// Refuse this sender's handoffs at accept time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocked: Option<bool>,
    /// Read-only operations need no approval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auto_read: Option<bool>,
    /// Attached test commands may run without approval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auto_test: Option<bool>,
    /// Path prefixes where edits need no approval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auto_write_paths: Option<Vec<String>>,
    /// Tools that always need approval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub require_approval: Option<Vec<String>>,
}

/// A recipient's `trust.yaml`. Schema (version 1):
///
/// ```yaml
/// version: 1
/// default:                 # senders not listed below (built-in defaults fill gaps)
///   auto_read: true
/// senders:
///   "bob@acme":            # exact handle first …
///     auto_test: true
///     auto_write_paths: ["docs/", "README.md"]
///   "*@acme":              # … then the sender's organisation …
///     auto_read: true
///   "mallory@evil":
///     blocked: true
/// ```
/// … then `default`, then the built-in defaults: not blocked, `auto_read` and `auto_test`
/// false, no `auto_write_paths`, `require_approval: [Edit, Write, Bash]`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct TrustPolicy {
    /// Schema version; must be 1.
    pub version: u32,
    /// Rules for senders not listed.
    #[serde(default)]
    pub default: TrustRules,
    /// Rules by sender handle or `*@org`.
    #[serde(default)]
    pub senders: BTreeMap<String, TrustRules>,
}

/// The overlay `accept_handoff` returns (I5).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct TrustOverlay {
    /// Read-only operations need no approval.
    pub auto_read: bool,
    /// Attached test commands may run without approval.
    pub auto_test: bool,
    /// Path prefixes where edits need no approval.
    pub auto_write_paths: Vec<String>,
    /// Tools that always need approval.
    pub require_approval: Vec<String>,
}

/// The rules that apply to `sender` under `policy` (none: built-in defaults).
/// Returns whether the sender is blocked, and the overlay.
pub(crate) fn evaluate(policy: Option<&TrustPolicy>, sender: &str) -> (bool, TrustOverlay) {
    let org = sender.split_once('@').map(|(_, o)| format!("*@{o}"));
    let layers: Vec<&TrustRules> = match policy {
        None => Vec::new(),
        Some(p) => [p.senders.get(sender), org.as_ref().and_then(|o| p.senders.get(o)), Some(&p.default)]
            .into_iter()
            .flatten()
            .collect(),
    };
    fn pick<T: Clone>(layers: &[&TrustRules], f: impl Fn(&TrustRules) -> Option<&T>, dflt: T) -> T {
        layers.iter().find_map(|l| f(l)).cloned().unwrap_or(dflt)
    }
    let blocked = pick(&layers, |r| r.blocked.as_ref(), false);
    let overlay = TrustOverlay {
        auto_read: pick(&layers, |r| r.auto_read.as_ref(), false),
        auto_test: pick(&layers, |r| r.auto_test.as_ref(), false),
        auto_write_paths: pick(&layers, |r| r.auto_write_paths.as_ref(), Vec::new()),
        require_approval: pick(
            &layers,
            |r| r.require_approval.as_ref(),
            vec!["Edit".to_string(), "Write".to_string(), "Bash".to_string()],
        ),
    };
    (blocked, overlay)
}

/// Parses `trust.yaml`, or says what is wrong and where.
pub(crate) fn parse(yaml: &str) -> Result<TrustPolicy, String> {
    let p = read(yaml)?;
    if p.version != 1 {
        return Err(format!("version {} is not supported; use version: 1", p.version));
    }
    Ok(p)
}

/// The policy in `yaml`, read as YAML.
#[cfg(feature = "yaml")]
fn read(yaml: &str) -> Result<TrustPolicy, String> {
    serde_yaml_ng::from_str(yaml).map_err(|e| e.to_string())
}

/// The policy in `yaml`, read in its JSON form (JSON is YAML too): a build without the `yaml`
/// feature (the console's) has no YAML reader.
#[cfg(not(feature = "yaml"))]
fn read(yaml: &str) -> Result<TrustPolicy, String> {
    const JSON_ONLY: &str = "this build reads a trust policy only in its JSON form, e.g. \
        {\"version\": 1, \"senders\": {\"bob@acme\": {\"auto_read\": true}}}; \
        baton serve and the npm package read block YAML";
    if !yaml.trim_start().starts_with('{') {
        return Err(JSON_ONLY.to_string());
    }
    serde_json::from_str(yaml).map_err(|e| format!("{e} ({JSON_ONLY})"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const YAML: &str = "version: 1\ndefault:\n  auto_read: true\nsenders:\n  bob@acme:\n    auto_test: true\n    auto_write_paths: [docs/]\n  '*@acme':\n    require_approval: [Bash]\n  mallory@evil:\n    blocked: true\n";

    /// The same policy in its JSON form, which every build reads.
    const JSON: &str = r#"{"version": 1, "default": {"auto_read": true}, "senders": {"bob@acme": {"auto_test": true, "auto_write_paths": ["docs/"]}, "*@acme": {"require_approval": ["Bash"]}, "mallory@evil": {"blocked": true}}}"#;

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn i3_layers_exact_then_org_then_default_then_builtin() {
        let forms: &[&str] = if cfg!(feature = "yaml") { &[YAML, JSON] } else { &[JSON] };
        for text in forms {
            layers(&parse(text).unwrap());
        }
    }

    fn layers(p: &TrustPolicy) {
        let (blocked, o) = evaluate(Some(p), "bob@acme");
        assert!(!blocked);
        assert_eq!(
            o,
            TrustOverlay {
                auto_read: true,
                auto_test: true,
                auto_write_paths: vec!["docs/".into()],
                require_approval: vec!["Bash".into()]
            }
        );
        assert!(evaluate(Some(p), "mallory@evil").0);
        let (_, stranger) = evaluate(None, "x@y");
        assert_eq!(stranger.require_approval, ["Edit", "Write", "Bash"]);
        assert!(!stranger.auto_read);
    }

    #[test]
    #[cfg(feature = "yaml")]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn i3_bad_yaml_says_where() {
        assert!(parse("version: 1\nsenders:\n  bob@acme:\n    auto_reed: true\n").unwrap_err().contains("auto_reed"));
        assert!(parse("version: 2\n").unwrap_err().contains("version 2"));
    }

    /// Without the `yaml` feature (the console's build) block YAML is refused with a message
    /// that shows the JSON form; the JSON form is read and checked as in every build.
    #[test]
    #[cfg(not(feature = "yaml"))]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn i3_a_build_without_yaml_reads_the_json_form() {
        for bad in [YAML, "{version: 1}"] {
            let e = parse(bad).unwrap_err();
            assert!(e.contains("only in its JSON form") && e.contains("\"version\": 1"), "{e}");
        }
        assert!(parse(r#"{"version": 1, "senders": {"bob@acme": {"auto_reed": true}}}"#)
            .unwrap_err()
            .contains("auto_reed"));
        assert!(parse(r#"{"version": 2}"#).unwrap_err().contains("version 2"));
    }
}
