//! Input limits that a schema states and a check enforces, named once for both.

/// The schema pattern of a required text: at least one character that is not white space
/// (the engine trims before it checks, so a blank text is refused like an empty one).
#[cfg(feature = "schema")]
pub(crate) const NON_BLANK: &str = r"\S";
