//! The handoff lifecycle: every edge of rule S10 in one table. Nothing else sets a status.
use crate::ground::machine::{step, Lifecycle, Refused, Row};
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
    /// The host could not start the child thread it was asked to (`start_failed`, G18).
    StartFailed,
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

/// The handoff lifecycle (rule S10). Pairs with no row are refused: a child's first event
/// always marks it active (`started` → `running`) before the event itself is applied, so a
/// `started` handoff never fails, exhausts a callback, answers first or finishes unwaited; and a watch that closed
/// on a first response takes no second one.
pub(crate) struct HandoffLifecycle;

impl Lifecycle for HandoffLifecycle {
    type State = Status;
    type Event = Event;
    const NAME: &'static str = "handoff";
    const ROWS: &'static [Row<Status, Event>] = {
        use Event as E;
        use Status as S;
        &[
            Row { from: S::Started, event: E::ChildActive, to: S::Running, does: "first activity: the child runs" },
            Row {
                from: S::Running,
                event: E::ChildActive,
                to: S::Running,
                does: "activity: the stored status stays; live state is recomputed (S1, S4)",
            },
            Row {
                from: S::FirstResponse,
                event: E::ChildActive,
                to: S::FirstResponse,
                does: "activity: the stored status stays; live state is recomputed (S1, S4)",
            },
            Row {
                from: S::WatchExpired,
                event: E::ChildActive,
                to: S::WatchExpired,
                does: "activity: the stored status stays; live state is recomputed (S1, S4)",
            },
            Row {
                from: S::Timeout,
                event: E::ChildActive,
                to: S::Timeout,
                does: "activity: the stored status stays; live state is recomputed (S1, S4)",
            },
            Row {
                from: S::Running,
                event: E::FirstResponse,
                to: S::FirstResponse,
                does: "a blueprint child answered during the watch (B5)",
            },
            Row {
                from: S::Started,
                event: E::WatchExpired,
                to: S::WatchExpired,
                does: "the watch window closed, the child still runs (G9)",
            },
            Row {
                from: S::Running,
                event: E::WatchExpired,
                to: S::WatchExpired,
                does: "the watch window closed, the child still runs (G9)",
            },
            Row {
                from: S::Started,
                event: E::Complete,
                to: S::Completed,
                does: "result delivered: report, watch, @END or callback",
            },
            Row {
                from: S::Running,
                event: E::Complete,
                to: S::Completed,
                does: "result delivered: report, watch, @END or callback",
            },
            Row {
                from: S::FirstResponse,
                event: E::Complete,
                to: S::Completed,
                does: "result delivered: report, watch, @END or callback",
            },
            Row {
                from: S::WatchExpired,
                event: E::Complete,
                to: S::Completed,
                does: "result delivered: report, watch, @END or callback",
            },
            Row {
                from: S::Timeout,
                event: E::Complete,
                to: S::Completed,
                does: "result delivered: report, watch, @END or callback",
            },
            Row {
                from: S::Running,
                event: E::FinishUnwaited,
                to: S::ExpiredUnnotified,
                does: "finished with nobody waiting",
            },
            Row {
                from: S::FirstResponse,
                event: E::FinishUnwaited,
                to: S::ExpiredUnnotified,
                does: "finished with nobody waiting",
            },
            Row {
                from: S::WatchExpired,
                event: E::FinishUnwaited,
                to: S::ExpiredUnnotified,
                does: "finished with nobody waiting",
            },
            Row {
                from: S::Timeout,
                event: E::FinishUnwaited,
                to: S::ExpiredUnnotified,
                does: "finished with nobody waiting",
            },
            Row {
                from: S::Started,
                event: E::Cancel,
                to: S::Cancelled,
                does: "tracking stopped by handoff_cancel (C1)",
            },
            Row {
                from: S::Running,
                event: E::Cancel,
                to: S::Cancelled,
                does: "tracking stopped by handoff_cancel (C1)",
            },
            Row {
                from: S::FirstResponse,
                event: E::Cancel,
                to: S::Cancelled,
                does: "tracking stopped by handoff_cancel (C1)",
            },
            Row {
                from: S::WatchExpired,
                event: E::Cancel,
                to: S::Cancelled,
                does: "tracking stopped by handoff_cancel (C1)",
            },
            Row {
                from: S::Timeout,
                event: E::Cancel,
                to: S::Cancelled,
                does: "tracking stopped by handoff_cancel (C1)",
            },
            Row { from: S::Running, event: E::Fail, to: S::Error, does: "the child failed" },
            Row { from: S::FirstResponse, event: E::Fail, to: S::Error, does: "the child failed" },
            Row { from: S::WatchExpired, event: E::Fail, to: S::Error, does: "the child failed" },
            Row { from: S::Timeout, event: E::Fail, to: S::Error, does: "the child failed" },
            Row {
                from: S::Started,
                event: E::Abandon,
                to: S::Abandoned,
                does: "child missing or quiet seven days (S6, S8)",
            },
            Row {
                from: S::Running,
                event: E::Abandon,
                to: S::Abandoned,
                does: "child missing or quiet seven days (S6, S8)",
            },
            Row {
                from: S::FirstResponse,
                event: E::Abandon,
                to: S::Abandoned,
                does: "child missing or quiet seven days (S6, S8)",
            },
            Row {
                from: S::WatchExpired,
                event: E::Abandon,
                to: S::Abandoned,
                does: "child missing or quiet seven days (S6, S8)",
            },
            Row {
                from: S::Timeout,
                event: E::Abandon,
                to: S::Abandoned,
                does: "child missing or quiet seven days (S6, S8)",
            },
            Row {
                from: S::Running,
                event: E::CallbackExhausted,
                to: S::Undeliverable,
                does: "the fifth callback submission failed (G14)",
            },
            Row {
                from: S::FirstResponse,
                event: E::CallbackExhausted,
                to: S::Undeliverable,
                does: "the fifth callback submission failed (G14)",
            },
            Row {
                from: S::WatchExpired,
                event: E::CallbackExhausted,
                to: S::Undeliverable,
                does: "the fifth callback submission failed (G14)",
            },
            Row {
                from: S::Timeout,
                event: E::CallbackExhausted,
                to: S::Undeliverable,
                does: "the fifth callback submission failed (G14)",
            },
            Row {
                from: S::Started,
                event: E::StartFailed,
                to: S::MaterializeFailed,
                does: "the host could not start the child thread (G18)",
            },
        ]
    };

    fn is_terminal(s: Status) -> bool {
        s.is_terminal()
    }

    fn label(s: Status) -> &'static str {
        s.as_str()
    }

    fn explain(r: Refused<Status, Event>) -> Option<(String, Option<&'static str>)> {
        Some((TransitionError::from(r).to_string(), Some("S10")))
    }
}

impl From<Refused<Status, Event>> for TransitionError {
    fn from(r: Refused<Status, Event>) -> Self {
        match r {
            Refused::Terminal { from, event } => TransitionError::Terminal { from, event },
            Refused::Invalid { from, event } => TransitionError::Invalid { from, event },
        }
    }
}

/// The next status: a row of the table, `Ok(to)` possibly equal to `from` (activity while
/// already running). Terminal statuses refuse every event.
pub fn transition(from: Status, event: Event) -> Result<Status, TransitionError> {
    step::<HandoffLifecycle>(from, event).map(|r| r.to).map_err(TransitionError::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    const EVENTS: [Event; 10] = [
        Event::ChildActive,
        Event::FirstResponse,
        Event::WatchExpired,
        Event::Complete,
        Event::FinishUnwaited,
        Event::Cancel,
        Event::Fail,
        Event::Abandon,
        Event::CallbackExhausted,
        Event::StartFailed,
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
