//! How the views name things: a value's wire name, an agent's display name.
use crate::engine::state::State;

/// A value's wire name (its serde form), for enums without an `as_str`.
pub(crate) fn wire<T: serde::Serialize>(v: &T) -> String {
    match serde_json::to_value(v) {
        Ok(serde_json::Value::String(s)) => s,
        other => format!("{other:?}"),
    }
}

/// An agent's display name (its id when it has none registered).
pub fn display(st: &State, bot: &str) -> String {
    display_str(st, bot).to_string()
}

/// [`display`], borrowed.
pub(crate) fn display_str<'a>(st: &'a State, bot: &'a str) -> &'a str {
    st.agents.get(bot).map_or(bot, |a| a.display_name.as_str())
}
