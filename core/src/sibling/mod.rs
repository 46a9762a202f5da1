//! Sibling handoffs (rules X1–X5): an originator hands control to a sibling agent, which
//! hands it back with `handoff_release` and typed return values.
pub(crate) mod flow;
pub(crate) mod store;
pub(crate) mod tools;
pub(crate) mod wire;
use crate::ground::machine::{step, Lifecycle, Row};
use crate::ground::time::{forms, Timestamp};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Longest `summary` and `reason` of `handoff_release`, in characters (X2).
pub(crate) const MAX_RELEASE_TEXT: usize = 2000;

/// Declared type of a return field (X3).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ReturnType {
    /// Text.
    String,
    /// Any number.
    Number,
    /// A whole number.
    Integer,
    /// true or false.
    Boolean,
    /// A calendar date, `YYYY-MM-DD`.
    Date,
    /// A date and time (RFC 3339).
    Datetime,
    /// One of `values`.
    Enum,
    /// A list.
    Array,
    /// A JSON object.
    Object,
}

impl ReturnType {
    /// Wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            ReturnType::String => "string",
            ReturnType::Number => "number",
            ReturnType::Integer => "integer",
            ReturnType::Boolean => "boolean",
            ReturnType::Date => "date",
            ReturnType::Datetime => "datetime",
            ReturnType::Enum => "enum",
            ReturnType::Array => "array",
            ReturnType::Object => "object",
        }
    }
}

/// One field of the originator's `expected_return` schema.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ReturnField {
    /// Field name.
    #[cfg_attr(feature = "schema", schemars(length(min = 1), pattern(crate::ground::limits::NON_BLANK)))]
    pub name: String,
    /// Declared type.
    #[serde(rename = "type")]
    pub kind: ReturnType,
    /// Required (reported in `missing_required` when absent; never blocks the release).
    #[serde(default)]
    pub required: bool,
    /// What the field means.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// For `enum`: the allowed values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values: Option<Vec<String>>,
}

/// How a release ended (X2).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Done (default).
    #[default]
    Resolved,
    /// The sibling could not help: the originator should try something else.
    CannotHelp,
    /// Handed on elsewhere.
    Transferring,
    /// Nothing needed doing.
    NoAction,
}

impl Outcome {
    /// Wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Resolved => "resolved",
            Outcome::CannotHelp => "cannot_help",
            Outcome::Transferring => "transferring",
            Outcome::NoAction => "no_action",
        }
    }
}

/// Where a sibling session is.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SessionStatus {
    /// The sibling holds control; the originator is bypassed.
    Active,
    /// The sibling handed control back (terminal).
    Released,
    /// The sibling stayed quiet past the idle timeout; control went back (terminal).
    TimedOut,
}

impl SessionStatus {
    /// Wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            SessionStatus::Active => "active",
            SessionStatus::Released => "released",
            SessionStatus::TimedOut => "timed_out",
        }
    }
}

/// What can happen to a sibling session.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum SessionEvent {
    /// `handoff_release`.
    Release,
    /// The idle timeout passed.
    IdleTimeout,
}

/// The sibling session lifecycle (rules X2, X4): only an active session moves.
pub(crate) struct SessionLifecycle;

impl Lifecycle for SessionLifecycle {
    type State = SessionStatus;
    type Event = SessionEvent;
    const NAME: &'static str = "sibling session";
    const ROWS: &'static [Row<SessionStatus, SessionEvent>] = &[
        Row {
            from: SessionStatus::Active,
            event: SessionEvent::Release,
            to: SessionStatus::Released,
            does: "handoff_release: control and return values go back to the originator (X2)",
        },
        Row {
            from: SessionStatus::Active,
            event: SessionEvent::IdleTimeout,
            to: SessionStatus::TimedOut,
            does: "the sibling went quiet past its idle timeout: control goes back (X4)",
        },
    ];

    fn is_terminal(s: SessionStatus) -> bool {
        s != SessionStatus::Active
    }

    fn label(s: SessionStatus) -> &'static str {
        s.as_str()
    }
}

/// The next status, `None` when the session cannot take the event.
pub(crate) fn session_transition(from: SessionStatus, event: SessionEvent) -> Option<SessionStatus> {
    step::<SessionLifecycle>(from, event).ok().map(|r| r.to)
}

/// One sibling handoff.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SiblingSession {
    /// Id.
    pub session_id: crate::ground::ids::SessionId,
    /// Originating bot and thread (bypassed while active).
    pub originator_bot: String,
    /// Originating thread.
    pub originator_thread: crate::ground::ids::ThreadId,
    /// Receiving bot.
    pub sibling_bot: String,
    /// Receiving thread: the only place `handoff_release` exists (X1).
    pub sibling_thread: crate::ground::ids::ThreadId,
    /// The task handed over.
    pub task: String,
    /// Declared return schema.
    pub expected_return: Vec<ReturnField>,
    /// Quiet this long hands control back.
    pub idle_timeout_ms: u64,
    /// Status.
    pub status: SessionStatus,
    /// Created.
    pub created_at: Timestamp,
    /// Released or timed out.
    pub ended_at: Option<Timestamp>,
    /// Release outcome.
    pub outcome: Option<Outcome>,
    /// Release summary.
    pub summary: Option<String>,
    /// Release reason.
    pub reason: Option<String>,
    /// Coerced values.
    pub return_values: Option<Map<String, Value>>,
    /// Required fields not filled (X3).
    pub missing_required: Vec<String>,
}

/// One audit log entry (X5).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AuditEntry {
    /// When.
    pub at: Timestamp,
    /// Session.
    pub session_id: crate::ground::ids::SessionId,
    /// Who acted (bot id, or `baton` for a timeout).
    pub actor: String,
    /// `released` or `timed_out`.
    pub action: String,
    /// Outcome.
    pub outcome: Option<Outcome>,
    /// Summary, as given.
    pub summary: Option<String>,
    /// Reason, as given.
    pub reason: Option<String>,
}

/// The `[EXPECTED RETURN SCHEMA]` block of the sibling's initial context.
pub(crate) fn schema_block(fields: &[ReturnField]) -> String {
    let mut s = String::from("[EXPECTED RETURN SCHEMA]\n");
    if fields.is_empty() {
        s.push_str("(none: release with a summary)\n");
    }
    for f in fields {
        s.push_str(&format!(
            "- {} ({}, {})",
            f.name,
            f.kind.as_str(),
            if f.required { "required" } else { "optional" }
        ));
        if let Some(v) = &f.values {
            s.push_str(&format!(" one of: {}", v.join(", ")));
        }
        if let Some(d) = &f.description {
            s.push_str(&format!(": {d}"));
        }
        s.push('\n');
    }
    s.push_str("[/EXPECTED RETURN SCHEMA]");
    s
}

fn integral(f: f64) -> Option<Value> {
    (f.fract() == 0.0 && f.abs() < 9.0e15).then(|| Value::from(f as i64))
}

/// Coerces one returned value to its declared type (X3). The rules, per type:
/// - `string`: strings as given; numbers and booleans as their JSON text; arrays and objects
///   as compact JSON.
/// - `boolean`: booleans; `yes`/`true`/`1`/`y`/`on` → true and `no`/`false`/`0`/`n`/`off` →
///   false (trimmed, any case); the numbers 1 and 0.
/// - `number`: numbers; numeric strings (trimmed) → numbers (whole values as integers).
/// - `integer`: whole numbers, and strings holding one (`"42"`, `"42.0"`).
/// - `date`: `YYYY-MM-DD`, or an RFC 3339 date-time reduced to its date.
/// - `datetime`: RFC 3339, normalised to UTC.
/// - `enum`: one of `values`, matched exactly, else ignoring case (→ the declared spelling).
/// - `array`: arrays; a string holding a JSON array; any other value → a one-item array.
/// - `object`: objects; a string holding a JSON object.
///
/// Anything else is an error: the release still goes through, the value is kept as sent, and
/// the field is listed in `coercion_errors`.
pub(crate) fn coerce(field: &ReturnField, v: &Value) -> Result<Value, String> {
    let s = v.as_str().map(str::trim);
    // The value is quoted as sent (never case-folded: it is the sender's).
    let bad = || format!("cannot read {v} as {}", field.kind.as_str());
    match field.kind {
        ReturnType::String => Ok(match v {
            Value::String(_) => v.clone(),
            Value::Number(n) => Value::String(n.to_string()),
            Value::Bool(b) => Value::String(b.to_string()),
            Value::Null => return Err(bad()),
            other => Value::String(other.to_string()),
        }),
        // ASCII case folding: no other character folds into these words (the Kelvin sign's `k`
        // is in none of them), and it keeps Unicode's case tables out of the console's build.
        ReturnType::Boolean => match (v, s.map(str::to_ascii_lowercase).as_deref()) {
            (Value::Bool(b), _) => Ok(Value::Bool(*b)),
            (_, Some("yes" | "true" | "1" | "y" | "on")) => Ok(Value::Bool(true)),
            (_, Some("no" | "false" | "0" | "n" | "off")) => Ok(Value::Bool(false)),
            (Value::Number(n), _) if n.as_f64() == Some(1.0) => Ok(Value::Bool(true)),
            (Value::Number(n), _) if n.as_f64() == Some(0.0) => Ok(Value::Bool(false)),
            _ => Err(bad()),
        },
        ReturnType::Number => match (v, s) {
            (Value::Number(_), _) => Ok(v.clone()),
            (_, Some(t)) => t
                .parse::<f64>()
                .ok()
                .filter(|f| f.is_finite())
                .map(|f| integral(f).unwrap_or_else(|| Value::from(f)))
                .ok_or_else(bad),
            _ => Err(bad()),
        },
        ReturnType::Integer => {
            let f = match (v, s) {
                (Value::Number(n), _) => n.as_f64(),
                (_, Some(t)) => t.parse::<f64>().ok(),
                _ => None,
            };
            f.and_then(integral).ok_or_else(bad)
        }
        ReturnType::Date => {
            let t = s.ok_or_else(bad)?;
            if let Some(d) = forms::read_date(t) {
                return Ok(Value::String(forms::date(&d)));
            }
            chrono::DateTime::parse_from_rfc3339(t)
                .map(|d| Value::String(forms::date(&d.date_naive())))
                .map_err(|_| bad())
        }
        ReturnType::Datetime => {
            let t = s.ok_or_else(bad)?;
            chrono::DateTime::parse_from_rfc3339(t)
                .map(|d| {
                    Value::String(d.with_timezone(&chrono::Utc).to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true))
                })
                .map_err(|_| bad())
        }
        ReturnType::Enum => {
            let t = s.ok_or_else(bad)?;
            let values = field.values.as_deref().unwrap_or(&[]);
            values
                .iter()
                .find(|x| x.as_str() == t)
                .or_else(|| values.iter().find(|x| x.eq_ignore_ascii_case(t)))
                .map(|x| Value::String(x.clone()))
                .ok_or_else(|| format!("{v} is not one of {values:?}"))
        }
        ReturnType::Array => match v {
            Value::Array(_) => Ok(v.clone()),
            Value::String(t) => match serde_json::from_str::<Value>(t) {
                Ok(a @ Value::Array(_)) => Ok(a),
                _ => Ok(Value::Array(vec![v.clone()])),
            },
            Value::Null => Err(bad()),
            other => Ok(Value::Array(vec![other.clone()])),
        },
        ReturnType::Object => match v {
            Value::Object(_) => Ok(v.clone()),
            Value::String(t) => match serde_json::from_str::<Value>(t) {
                Ok(o @ Value::Object(_)) => Ok(o),
                _ => Err(bad()),
            },
            _ => Err(bad()),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn a_return_types_wire_name_is_its_serde_name() {
        use ReturnType::*;
        for t in [String, Number, Integer, Boolean, Date, Datetime, Enum, Array, Object] {
            assert_eq!(serde_json::to_value(t).unwrap(), t.as_str());
        }
    }

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn x3_a_value_that_does_not_read_is_quoted_as_sent() {
        let err = coerce(&f(ReturnType::Integer), &json!("Two And A Half")).unwrap_err();
        assert_eq!(err, "cannot read \"Two And A Half\" as integer");
        assert_eq!(coerce(&f(ReturnType::Boolean), &json!(" YES ")), Ok(json!(true)));
        assert_eq!(coerce(&f(ReturnType::Boolean), &json!("Off")), Ok(json!(false)));
    }

    fn f(kind: ReturnType) -> ReturnField {
        ReturnField { name: "x".into(), kind, required: false, description: None, values: None }
    }

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn x3_coercion_table() {
        use ReturnType::*;
        let ok = |k, v: Value| coerce(&f(k), &v).unwrap();
        assert_eq!(ok(Boolean, json!("yes")), json!(true));
        assert_eq!(ok(Boolean, json!(" TRUE ")), json!(true));
        assert_eq!(ok(Boolean, json!("1")), json!(true));
        assert_eq!(ok(Boolean, json!("off")), json!(false));
        assert_eq!(ok(Boolean, json!(0)), json!(false));
        assert!(coerce(&f(Boolean), &json!("maybe")).is_err());
        assert_eq!(ok(Number, json!("3.5")), json!(3.5));
        assert_eq!(ok(Number, json!("42")), json!(42));
        assert!(coerce(&f(Number), &json!("NaN")).is_err());
        assert_eq!(ok(Integer, json!("42.0")), json!(42));
        assert!(coerce(&f(Integer), &json!("4.2")).is_err());
        assert_eq!(ok(String, json!(12)), json!("12"));
        assert_eq!(ok(Date, json!("2026-06-10")), json!("2026-06-10"));
        assert_eq!(ok(Date, json!("2026-06-10T23:30:00-02:00")), json!("2026-06-10"));
        assert_eq!(ok(Datetime, json!("2026-06-10T23:30:00-02:00")), json!("2026-06-11T01:30:00Z"));
        assert!(coerce(&f(Date), &json!("10/06/2026")).is_err());
        assert_eq!(ok(Array, json!("[1,2]")), json!([1, 2]));
        assert_eq!(ok(Array, json!("a")), json!(["a"]));
        assert_eq!(ok(Object, json!("{\"a\":1}")), json!({"a": 1}));
        let mut e = f(Enum);
        e.values = Some(vec!["shipped".into(), "pending".into()]);
        assert_eq!(coerce(&e, &json!("SHIPPED")).unwrap(), json!("shipped"));
        assert!(coerce(&e, &json!("lost")).is_err());
    }

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn x2_session_table() {
        assert_eq!(session_transition(SessionStatus::Active, SessionEvent::Release), Some(SessionStatus::Released));
        assert_eq!(session_transition(SessionStatus::Released, SessionEvent::Release), None);
        assert_eq!(session_transition(SessionStatus::TimedOut, SessionEvent::IdleTimeout), None);
    }
}
