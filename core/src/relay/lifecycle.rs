//! The relay thread lifecycle: every edge in one table. Terminal statuses never move.
use crate::engine::error::{CallError, ErrorCode};
use crate::relay::RelayStatus;
use serde_json::json;

/// What can happen to a relay thread.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum RelayEvent {
    /// The recipient accepts (again: a no-op that returns the content once more).
    Accept,
    /// The recipient completes.
    Complete,
    /// The sender cancels.
    Cancel,
    /// Either side posts a message.
    Message,
}

/// The one table. Errors carry the documented codes: `-32007 thread_terminal` for a terminal
/// thread, `-32008 invalid_transition` for a live thread that cannot take the event.
pub(crate) fn relay_transition(from: RelayStatus, event: RelayEvent) -> Result<RelayStatus, CallError> {
    use RelayEvent as E;
    use RelayStatus as S;
    let terminal = || {
        CallError::new(
            ErrorCode::ThreadTerminal,
            format!("thread is {} (terminal); nothing can be appended or changed", from.as_str()),
        )
        .data(json!({"status": from.as_str()}))
    };
    match (from, event) {
        (S::Completed | S::Cancelled, _) => Err(terminal()),
        (S::Pending | S::Accepted, E::Accept) => Ok(S::Accepted),
        (S::Accepted, E::Complete) => Ok(S::Completed),
        (S::Pending, E::Complete) => Err(CallError::new(
            ErrorCode::InvalidTransition,
            "thread is pending: accept it before completing it (rule I8)",
        )
        .rule("I8")
        .data(json!({"status": "pending"}))),
        (S::Pending | S::Accepted, E::Cancel) => Ok(S::Cancelled),
        (s, E::Message) => Ok(s),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use RelayEvent::*;
    use RelayStatus::*;

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn i7_i8_relay_table() {
        assert_eq!(relay_transition(Pending, Accept).unwrap(), Accepted);
        assert_eq!(relay_transition(Accepted, Accept).unwrap(), Accepted);
        assert_eq!(relay_transition(Accepted, Complete).unwrap(), Completed);
        assert_eq!(relay_transition(Pending, Complete).unwrap_err().code.number(), -32008);
        assert_eq!(relay_transition(Pending, Message).unwrap(), Pending);
        for t in [Completed, Cancelled] {
            for e in [Accept, Complete, Cancel, Message] {
                assert_eq!(relay_transition(t, e).unwrap_err().code.number(), -32007);
            }
        }
    }
}
