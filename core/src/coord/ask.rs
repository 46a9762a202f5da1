//! `ask_user` (rule A8): questions to the user, a pending snapshot for non-interactive runs,
//! clamping of what the snapshot carries, and masked answers that never reach the log.
use crate::ground::machine::{Lifecycle, Refused, Row};
use crate::ground::time::Timestamp;
use crate::handoff::calls::CallSnapshot;
use crate::handoff::question::Question;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Where a question is.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AskStatus {
    /// Waiting for the user; no timeout.
    Pending,
    /// Answered.
    Answered,
}

/// What can happen to a question.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum AskEvent {
    /// The user answered (host input `answer_user`).
    Answer,
}

/// The question lifecycle (rule A8): pending until answered, with no timeout.
pub(crate) struct AskLifecycle;

impl Lifecycle for AskLifecycle {
    type State = AskStatus;
    type Event = AskEvent;
    const NAME: &'static str = "question";
    const ROWS: &'static [Row<AskStatus, AskEvent>] = &[Row {
        from: AskStatus::Pending,
        event: AskEvent::Answer,
        to: AskStatus::Answered,
        does: "the user answered: the run resumes with the answers",
    }];

    fn is_terminal(s: AskStatus) -> bool {
        s == AskStatus::Answered
    }

    fn label(s: AskStatus) -> &'static str {
        match s {
            AskStatus::Pending => "pending",
            AskStatus::Answered => "answered",
        }
    }

    fn explain(r: Refused<AskStatus, AskEvent>) -> Option<(String, Option<&'static str>)> {
        matches!(r, Refused::Terminal { .. }).then(|| ("this question is already answered".into(), Some("A8")))
    }
}

/// A question put to the user.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Ask {
    /// Id.
    pub question_id: crate::ground::ids::QuestionId,
    /// Asking thread.
    pub thread_id: crate::ground::ids::ThreadId,
    /// Questions.
    pub questions: Vec<Question>,
    /// The run's tool calls so far (non-interactive runs), clamped.
    pub snapshot: Option<Vec<CallSnapshot>>,
    /// Status.
    pub status: AskStatus,
    /// Asked at.
    pub asked_at: Timestamp,
    /// Answered at.
    pub answered_at: Option<Timestamp>,
    /// Answers as stored: masked answers redacted.
    pub answers: Option<Vec<Value>>,
}

/// Words that mark a request for a credential (checked in the question and its detail).
const CREDENTIAL_WORDS: [&str; 16] = [
    "password",
    "passphrase",
    "passcode",
    "api key",
    "api-key",
    "api_key",
    "apikey",
    "access token",
    "auth token",
    "bearer token",
    "private key",
    "secret key",
    "client secret",
    "ssh key",
    "credential",
    "pin code",
];

/// Whether a question asks for a credential (rule A8: never asked here).
pub(crate) fn asks_for_credential(q: &Question) -> bool {
    let text = crate::ground::case::lower_for_ascii(&format!("{} {}", q.question, q.detail.as_deref().unwrap_or("")));
    CREDENTIAL_WORDS.iter().any(|w| text.contains(w))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::handoff::question::QuestionKind;

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn a8_credentials_are_recognised() {
        let q = |s: &str| Question { question: s.into(), kind: QuestionKind::Text, options: None, detail: None };
        assert!(asks_for_credential(&q("What is your GitHub API key?")));
        assert!(asks_for_credential(&q("Paste the database Password")));
        assert!(!asks_for_credential(&q("Which region should I deploy to?")));
    }

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn a8_a_kelvin_sign_reads_as_k() {
        let q = |s: &str| Question { question: s.into(), kind: QuestionKind::Text, options: None, detail: None };
        assert!(asks_for_credential(&q("Your API \u{212A}EY, please")));
    }
}
