//! The handoff lifecycle: every edge of rule S10 in one table. Nothing else sets a status.
use crate::handoff::Status;
use serde::Serialize;

/// What can happen to a handoff.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Event {
    /// The child showed activity (tool call, turn, response).
    ChildActive,
    /// A blueprint child's first stable response during a watch (B5).
    FirstResponse,
    /// The watch window closed with the child still running (G9).
    WatchExpired,
    /// The child finished and the result reached its consumer (report, watch, callback, `@END`).
    Complete,
    /// The child finished but nobody was waiting for it (`on_completion=return` without a waiter).
    FinishUnwaited,
    /// `handoff_cancel` (C1).
    Cancel,
    /// The child failed (host reported a runtime error).
    Fail,
    /// Child missing (S6) or quiet for seven days (S8).
    Abandon,
    /// The fifth failed callback submission (G14).
    CallbackExhausted,
}

/// Why a move was refused.
#[derive(Copy, Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TransitionError {
    /// The handoff is terminal; terminal never moves (code -32007 `thread_terminal`).
    #[error("handoff is {} (terminal) and cannot move on `{event:?}`", from.as_str())]
    Terminal {
        /// Current status.
        from: Status,
        /// Refused event.
        event: Event,
    },
    /// Not an edge of the lifecycle (code -32008 `invalid_transition`).
    #[error("handoff is {} and `{event:?}` is not a move from there", from.as_str())]
    Invalid {
        /// Current status.
        from: Status,
        /// Refused event.
        event: Event,
    },
}

/// The one transition table. `Ok(to)` may equal `from` (a no-op edge, e.g. activity while
/// already running). Terminal statuses refuse every event.
pub fn transition(from: Status, event: Event) -> Result<Status, TransitionError> {
    use Event as E;
    use Status as S;
    if from.is_terminal() {
        return Err(TransitionError::Terminal { from, event });
    }
    let to = match (from, event) {
        // Activity: `started` becomes `running`; a stored watch_expired/timeout/first_response
        // stays as stored — live state is recomputed from the child (S1, S4).
        (S::Started, E::ChildActive) => S::Running,
        (s, E::ChildActive) => s,
        // B5: only while a watch is open, i.e. before the window closed.
        (S::Started | S::Running | S::FirstResponse, E::FirstResponse) => S::FirstResponse,
        (S::Started | S::Running, E::WatchExpired) => S::WatchExpired,
        (_, E::Complete) => S::Completed,
        (_, E::FinishUnwaited) => S::ExpiredUnnotified,
        (_, E::Cancel) => S::Cancelled,
        (_, E::Fail) => S::Error,
        (_, E::Abandon) => S::Abandoned,
        (_, E::CallbackExhausted) => S::Undeliverable,
        (from, event) => return Err(TransitionError::Invalid { from, event }),
    };
    Ok(to)
}

#[cfg(test)]
mod tests {
    use super::*;

    const EVENTS: [Event; 9] = [
        Event::ChildActive,
        Event::FirstResponse,
        Event::WatchExpired,
        Event::Complete,
        Event::FinishUnwaited,
        Event::Cancel,
        Event::Fail,
        Event::Abandon,
        Event::CallbackExhausted,
    ];

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn s10_terminal_never_moves() {
        for s in Status::ALL.into_iter().filter(|s| s.is_terminal()) {
            for e in EVENTS {
                assert_eq!(transition(s, e), Err(TransitionError::Terminal { from: s, event: e }));
            }
        }
    }

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn s10_status_sets_match_the_rule() {
        let terminal: Vec<_> = Status::ALL.into_iter().filter(|s| s.is_terminal()).map(Status::as_str).collect();
        assert_eq!(
            terminal,
            [
                "completed",
                "error",
                "cancelled",
                "materialize_failed",
                "expired_unnotified",
                "abandoned",
                "undeliverable"
            ]
        );
    }

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn s4_watch_expired_and_legacy_timeout_are_live() {
        for s in [Status::WatchExpired, Status::Timeout] {
            assert!(!s.is_terminal());
            assert_eq!(transition(s, Event::ChildActive), Ok(s));
            assert_eq!(transition(s, Event::Complete), Ok(Status::Completed));
        }
    }

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn s10_refused_edges_are_typed() {
        assert_eq!(
            transition(Status::WatchExpired, Event::FirstResponse),
            Err(TransitionError::Invalid { from: Status::WatchExpired, event: Event::FirstResponse })
        );
        assert_eq!(transition(Status::Started, Event::ChildActive), Ok(Status::Running));
    }
}
