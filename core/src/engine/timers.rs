//! Time rules, run from an explicit `tick(now)`. Each capability gives its own timed parts —
//! when its rule next applies, and what it does once due — and `surface::TIMED` lists them;
//! `next_deadline` and `tick` both read that one list, so they cannot drift apart.
use crate::engine::state::State;
use crate::engine::tx::Tx;
use crate::ground::error::CallError;
use crate::ground::time::Timestamp;

/// One time rule of one capability.
pub(crate) struct Timed {
    /// What it is (for readers and failures).
    pub name: &'static str,
    /// The earliest time at which it has something to do, if any.
    pub deadline: fn(&State) -> Option<Timestamp>,
    /// Does what is due at or before `tx.now` (nothing when nothing is).
    pub on_due: fn(&mut Tx<'_>) -> Result<(), CallError>,
}

/// The earliest deadline of `parts`.
pub(crate) fn next_deadline(parts: &[Timed], st: &State) -> Option<Timestamp> {
    parts.iter().filter_map(|p| (p.deadline)(st)).min()
}

/// Runs every part, in order.
pub(crate) fn tick(parts: &[Timed], tx: &mut Tx<'_>) -> Result<(), CallError> {
    for p in parts {
        (p.on_due)(tx)?;
    }
    Ok(())
}
