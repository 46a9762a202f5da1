//! What happens next to one handoff and when: the engine's own time rules (watch window G9,
//! reminders S7, abandonment S8) read for one record, so a panel can say "a reminder goes out
//! in 12 min" with the same deadlines `tick` acts on.
use crate::engine::state::State;
use crate::ground::time::Timestamp;

/// What comes next for a handoff.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NextEvent {
    /// The parent's watch window closes (G9); the child keeps working.
    WatchCloses,
    /// The quiet child is reminded to report (S7).
    Reminder,
    /// The handoff is abandoned after seven quiet days (S8).
    Abandoned,
}

impl NextEvent {
    /// In words, for a person.
    pub fn words(self) -> &'static str {
        match self {
            NextEvent::WatchCloses => "the parent's watch window closes",
            NextEvent::Reminder => "a reminder goes to the child",
            NextEvent::Abandoned => "it is given up as abandoned",
        }
    }
}

/// The next events of an open handoff, soonest first (none for a finished one or an unknown id).
pub fn handoff_next(st: &State, handoff_id: &str) -> Vec<(Timestamp, NextEvent)> {
    let Some(h) = st.handoffs.get(handoff_id).filter(|h| !h.status.is_terminal()) else { return Vec::new() };
    let d = st.due_of(h);
    let mut out: Vec<(Timestamp, NextEvent)> = [
        d.watch.map(|t| (t, NextEvent::WatchCloses)),
        d.nudge.map(|t| (t, NextEvent::Reminder)),
        d.abandon.map(|t| (t, NextEvent::Abandoned)),
    ]
    .into_iter()
    .flatten()
    .collect();
    out.sort_by_key(|(t, _)| *t);
    out
}
