//! One shape for every lifecycle (handoff, relay thread, sibling session, leg, schedule,
//! question): a table of rows `(from, event) → to`, each naming what the transition does.
//! Terminal states refuse every event; a pair with no row is refused too. The refusals map
//! to wire codes here and nowhere else: `-32007 thread_terminal`, `-32008 invalid_transition`.
use crate::ground::error::{CallError, ErrorCode};
use std::fmt::Debug;

/// One edge of a lifecycle.
#[derive(Debug)]
pub(crate) struct Row<S, E> {
    /// State before.
    pub from: S,
    /// What happened.
    pub event: E,
    /// State after (may equal `from`: an edge that changes nothing, e.g. a message).
    pub to: S,
    /// What the transition does, in a few words (for readers and for the row-coverage test).
    pub does: &'static str,
}

/// A lifecycle: its states, events and its one table.
pub(crate) trait Lifecycle: 'static {
    /// Its states.
    type State: Copy + Eq + Debug + 'static;
    /// Its events.
    type Event: Copy + Eq + Debug + 'static;
    /// What it is the lifecycle of (`handoff`, `relay thread`, …).
    const NAME: &'static str;
    /// Every edge.
    const ROWS: &'static [Row<Self::State, Self::Event>];
    /// Terminal states never move.
    fn is_terminal(s: Self::State) -> bool;
    /// The state's wire name.
    fn label(s: Self::State) -> &'static str;
    /// The message (and rule) of a refusal, where the lifecycle words its own.
    fn explain(_refused: Refused<Self::State, Self::Event>) -> Option<(String, Option<&'static str>)> {
        None
    }
}

/// Why a move was refused.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Refused<S, E> {
    /// The state is terminal.
    Terminal {
        /// Current state.
        from: S,
        /// Refused event.
        event: E,
    },
    /// No row takes this event from this state.
    Invalid {
        /// Current state.
        from: S,
        /// Refused event.
        event: E,
    },
}

/// A row of lifecycle `L`.
pub(crate) type RowOf<L> = Row<<L as Lifecycle>::State, <L as Lifecycle>::Event>;
/// A refusal by lifecycle `L`.
pub(crate) type RefusedBy<L> = Refused<<L as Lifecycle>::State, <L as Lifecycle>::Event>;

/// Takes one step: the row for `(from, event)`, or why there is none.
pub(crate) fn step<L: Lifecycle>(from: L::State, event: L::Event) -> Result<&'static RowOf<L>, RefusedBy<L>> {
    if L::is_terminal(from) {
        return Err(Refused::Terminal { from, event });
    }
    let (i, row) = L::ROWS
        .iter()
        .enumerate()
        .find(|(_, r)| r.from == from && r.event == event)
        .ok_or(Refused::Invalid { from, event })?;
    coverage::hit(L::NAME, i);
    Ok(row)
}

/// The next state, or the refusal as the wire error (the one place refusals become codes).
pub(crate) fn next<L: Lifecycle>(from: L::State, event: L::Event) -> Result<L::State, CallError> {
    step::<L>(from, event).map(|r| r.to).map_err(refusal::<L>)
}

/// A refusal as a wire error: `-32007 thread_terminal` or `-32008 invalid_transition`, with
/// the state in `data.status`.
pub(crate) fn refusal<L: Lifecycle>(r: RefusedBy<L>) -> CallError {
    let (code, from, event) = match r {
        Refused::Terminal { from, event } => (ErrorCode::ThreadTerminal, from, event),
        Refused::Invalid { from, event } => (ErrorCode::InvalidTransition, from, event),
    };
    let status = L::label(from);
    let e = match (L::explain(r), code) {
        (Some((message, Some(rule))), _) => CallError::new(code, message).rule(rule),
        (Some((message, None)), _) => CallError::new(code, message),
        (None, ErrorCode::ThreadTerminal) => {
            CallError::new(code, format!("{} is {status} (terminal); nothing can be appended or changed", L::NAME))
        }
        (None, _) => CallError::new(code, format!("{} is {status} and `{event:?}` is not a move from there", L::NAME)),
    };
    e.data(serde_json::json!({ "status": status }))
}

/// Which rows the running program has taken, when built with the `row-coverage` feature (the
/// conformance tests turn it on to check that every row of every table is exercised).
pub mod coverage {
    #[cfg(feature = "row-coverage")]
    static HITS: std::sync::Mutex<std::collections::BTreeSet<(&'static str, usize)>> =
        std::sync::Mutex::new(std::collections::BTreeSet::new());

    /// Notes that row `i` of lifecycle `name` was taken.
    #[cfg_attr(not(feature = "row-coverage"), inline(always))]
    pub(crate) fn hit(_name: &'static str, _i: usize) {
        #[cfg(feature = "row-coverage")]
        HITS.lock().unwrap_or_else(|e| e.into_inner()).insert((_name, _i));
    }

    /// Rows taken so far, as `(lifecycle, row index)`.
    #[cfg(feature = "row-coverage")]
    pub fn taken() -> std::collections::BTreeSet<(&'static str, usize)> {
        HITS.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}
