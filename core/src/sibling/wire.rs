//! The sibling tools' wire types: `handoff_request` and `handoff_release` (X1–X5).
use crate::sibling::{Outcome, ReturnField};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Parameters of `handoff_request`.
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct HandoffRequestArgs {
    /// Sibling agent to hand control to, by bot id or display name.
    #[cfg_attr(feature = "schema", schemars(length(min = 1), pattern(crate::ground::limits::NON_BLANK)))]
    pub target_agent: String,
    /// What the sibling should do, self-contained.
    #[cfg_attr(feature = "schema", schemars(length(min = 1), pattern(crate::ground::limits::NON_BLANK)))]
    pub task: String,
    /// Fields you want back, with types and required flags.
    #[serde(default)]
    pub expected_return: Option<Vec<ReturnField>>,
    /// Control comes back if the sibling stays quiet this long (60–86400 s, default 1800).
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(extend("default" = 1800), range(min = 60, max = 86400)))]
    pub idle_timeout_seconds: Option<i64>,
}

/// Parameters of `handoff_release`.
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct HandoffReleaseArgs {
    /// What you did, 1–2000 characters; shown to the originator and written to the audit log.
    #[cfg_attr(feature = "schema", schemars(length(min = 1, max = crate::sibling::MAX_RELEASE_TEXT), pattern(crate::ground::limits::NON_BLANK)))]
    pub summary: String,
    /// `resolved` (default), `cannot_help`, `transferring` or `no_action`.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(extend("default" = "resolved")))]
    pub outcome: Option<Outcome>,
    /// Extra context for the audit log, at most 2000 characters.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(length(max = crate::sibling::MAX_RELEASE_TEXT)))]
    pub reason: Option<String>,
    /// Values keyed by the names of the originator's expected_return schema.
    #[serde(default)]
    pub return_values: Option<Map<String, Value>>,
}

/// `handoff_request`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct HandoffRequestResult {
    /// Always true.
    pub ok: bool,
    /// Session.
    pub session_id: crate::ground::ids::SessionId,
    /// Receiving thread.
    pub thread_id: crate::ground::ids::ThreadId,
    /// Sibling bot.
    pub target_agent: String,
    /// `active`.
    pub status: String,
    /// Declared schema.
    pub expected_return: Vec<ReturnField>,
    /// What happens now.
    pub note: String,
}

/// `handoff_release` (X4).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct HandoffReleaseResult {
    /// Always true.
    pub ok: bool,
    /// Session.
    pub session_id: crate::ground::ids::SessionId,
    /// `released`.
    pub status: String,
    /// Outcome.
    pub outcome: String,
    /// Coerced values, when any were given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub return_values: Option<Map<String, Value>>,
    /// Required fields not filled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub missing_required: Option<Vec<String>>,
    /// Values kept as sent because they could not be coerced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coercion_errors: Option<Map<String, Value>>,
}
