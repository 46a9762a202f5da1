//! A turn's tool calls as a pending snapshot keeps them (rule A8): each call's arguments and
//! result, clamped with a marker saying how much was kept. The `tool_call` host input records
//! them; `ask_user` hands them over when a run ends for a question.
use serde::{Deserialize, Serialize};

/// Most bytes of one tool result kept in a pending snapshot.
pub(crate) const RESULT_CLAMP: usize = 32 * 1024;
/// Most bytes of one tool call's arguments kept in a pending snapshot.
pub(crate) const ARGS_CLAMP: usize = 4 * 1024;

// Its texts are boxed (`Box<str>`, two words where a `String` takes three): every retained
// child thread keeps its last turn's calls, so this is 48 bytes a call natively, not 72.
/// One tool call of the run so far, as a pending snapshot keeps it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CallSnapshot {
    /// Tool.
    pub tool: Box<str>,
    /// Arguments as JSON text, clamped to 4 KiB with a marker.
    pub arguments: Option<Box<str>>,
    /// Result text, clamped to 32 KiB with a marker.
    pub result: Option<Box<str>>,
}

/// A thread's tool calls of its current turn (A8), as the state keeps them: one record per
/// thread, held sealed like the other records once it leaves the recent window (a closed
/// child thread keeps its last turn's calls for `get_thread`, so every retained handoff has
/// one).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct TurnCalls(pub Vec<CallSnapshot>);

// The sealing dictionary (ground::records): a call without arguments or a result, and one
// with both. Never at rest (the default): calls are written at each tool call of a turn, and
// nothing in them says the turn has ended.
impl crate::ground::records::Sealable for TurnCalls {
    const DICTIONARY: &'static [u8] =
        br#"[{"tool":"","arguments":null,"result":null},{"tool":"","arguments":"{\"","result":""}]"#;
}

/// `text` cut to at most `max` bytes on a character boundary, with a marker saying how much
/// was kept; unchanged when it fits. Used only for snapshots, never for what a user sent.
pub(crate) fn clamp(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}\n[… clamped by Baton: kept {end} of {} bytes]", &text[..end], text.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn a8_clamp_marks_what_it_cut() {
        assert_eq!(clamp("short", 10), "short");
        let c = clamp(&"é".repeat(10), 5);
        assert!(c.starts_with("éé\n[… clamped by Baton: kept 4 of 20 bytes]"));
        let big = "x".repeat(RESULT_CLAMP + 10);
        assert!(clamp(&big, RESULT_CLAMP).contains(&format!("kept {RESULT_CLAMP} of {} bytes", RESULT_CLAMP + 10)));
    }
}
