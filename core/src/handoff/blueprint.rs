//! Blueprint manifests and mission strips (rules B1, B3, B4).
use serde::{Deserialize, Serialize};

/// One declared input of a blueprint.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct InputDecl {
    /// Input name.
    pub name: String,
    /// Required (else optional).
    #[serde(default)]
    pub required: bool,
}

/// A blueprint's manifest, registered by the host.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct BlueprintManifest {
    /// Blueprint name.
    #[cfg_attr(feature = "schema", schemars(length(min = 1), pattern(crate::ground::limits::NON_BLANK)))]
    pub name: String,
    /// Declared inputs, required and optional.
    #[serde(default)]
    pub inputs: Vec<InputDecl>,
}

/// How a journey stage appears on a mission strip (rule B4).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum StageState {
    /// A thread in the chain runs this stage.
    Spawned,
    /// Not reached yet.
    Expected,
    /// A later stage was spawned without this one.
    Skipped,
}

impl StageState {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            StageState::Spawned => "spawned",
            StageState::Expected => "expected",
            StageState::Skipped => "skipped",
        }
    }
}

/// The state of each stage: `spawned[i]` says whether stage `i` has a thread.
pub(crate) fn stage_states(spawned: &[bool]) -> Vec<StageState> {
    let last = spawned.iter().rposition(|s| *s);
    spawned
        .iter()
        .enumerate()
        .map(|(i, s)| match (s, last) {
            (true, _) => StageState::Spawned,
            (false, Some(l)) if i < l => StageState::Skipped,
            _ => StageState::Expected,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use StageState::*;

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn b4_stage_states() {
        assert_eq!(stage_states(&[true, false, true, false]), [Spawned, Skipped, Spawned, Expected]);
        assert_eq!(stage_states(&[false, false]), [Expected, Expected]);
    }

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn b4_stage_state_names_are_the_wire_names() {
        for s in [Spawned, Expected, Skipped] {
            assert_eq!(serde_json::to_value(s).unwrap(), s.as_str());
        }
    }
}
