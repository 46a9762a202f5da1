//! The questions a run may put to its user (rule A8): what `ask_user` takes, and what the
//! effects that show them carry.
use serde::{Deserialize, Serialize};

/// Kinds of question.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum QuestionKind {
    /// Free text (default).
    #[default]
    Text,
    /// One of `options`.
    SingleSelect,
    /// Any of `options`.
    MultiSelect,
    /// Typed masked; never stored in clear. Not for credentials (those go to `store_secret`).
    Secret,
}

/// One question.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "schema", schemars(extend("allOf" = [
    {"if": {"required": ["kind"], "properties": {"kind": {"enum": ["single_select", "multi_select"]}}},
     "then": {"required": ["options"], "properties": {"options": {"type": "array"}}},
     "else": {"properties": {"options": {"type": "null"}}}}
])))]
pub struct Question {
    /// The question, one line.
    #[cfg_attr(feature = "schema", schemars(length(min = 1), pattern(crate::ground::limits::NON_BLANK)))]
    pub question: String,
    /// `text` (default), `single_select`, `multi_select` or `secret`.
    #[serde(default)]
    pub kind: QuestionKind,
    /// Choices, for the select kinds (at least two, distinct).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(length(min = 2), extend("uniqueItems" = true)))]
    pub options: Option<Vec<String>>,
    /// Optional multi-line supporting context.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}
