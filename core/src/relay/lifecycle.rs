//! The relay thread lifecycle: every edge in one table. Terminal statuses never move.
use crate::ground::error::CallError;
use crate::ground::machine::{next, Lifecycle, Refused, Row};
use crate::relay::RelayStatus;

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

/// The relay thread lifecycle (rules I3, I7, I8).
pub(crate) struct RelayLifecycle;

impl Lifecycle for RelayLifecycle {
    type State = RelayStatus;
    type Event = RelayEvent;
    const NAME: &'static str = "relay thread";
    const ROWS: &'static [Row<RelayStatus, RelayEvent>] = {
        use RelayEvent as E;
        use RelayStatus as S;
        &[
            Row { from: S::Pending, event: E::Accept, to: S::Accepted, does: "the recipient takes it on (I3)" },
            Row {
                from: S::Accepted,
                event: E::Accept,
                to: S::Accepted,
                does: "accepted again: the content once more (I5)",
            },
            Row {
                from: S::Accepted,
                event: E::Complete,
                to: S::Completed,
                does: "the recipient closes it with a result (I8)",
            },
            Row { from: S::Pending, event: E::Cancel, to: S::Cancelled, does: "the sender withdraws it" },
            Row { from: S::Accepted, event: E::Cancel, to: S::Cancelled, does: "the sender stops it" },
            Row { from: S::Pending, event: E::Message, to: S::Pending, does: "a message before acceptance (I7)" },
            Row { from: S::Accepted, event: E::Message, to: S::Accepted, does: "a message while the work runs (I7)" },
        ]
    };

    fn is_terminal(s: RelayStatus) -> bool {
        matches!(s, RelayStatus::Completed | RelayStatus::Cancelled)
    }

    fn label(s: RelayStatus) -> &'static str {
        s.as_str()
    }

    fn explain(r: Refused<RelayStatus, RelayEvent>) -> Option<(String, Option<&'static str>)> {
        match r {
            Refused::Terminal { from, .. } => {
                Some((format!("thread is {} (terminal); nothing can be appended or changed", from.as_str()), None))
            }
            Refused::Invalid { from: RelayStatus::Pending, event: RelayEvent::Complete } => {
                Some(("thread is pending: accept it before completing it (rule I8)".into(), Some("I8")))
            }
            Refused::Invalid { .. } => None,
        }
    }
}

/// The next status, or the refusal with its documented code: `-32007 thread_terminal` for a
/// terminal thread, `-32008 invalid_transition` for a live thread that cannot take the event.
pub(crate) fn relay_transition(from: RelayStatus, event: RelayEvent) -> Result<RelayStatus, CallError> {
    next::<RelayLifecycle>(from, event)
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
