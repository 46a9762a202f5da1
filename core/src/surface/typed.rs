//! The typed Rust API beside the JSON one: one method per tool (declared with the tool in
//! `tools.rs`), typed arguments in, the tool's result out, no JSON on the way. It runs the same
//! caller checks (X1, X5, G13) and the same handler as [`Engine::call`], so both answer alike
//! (tested by `tests/typed_api.rs`); here, the previews.
use crate::engine::storage::Storage;
use crate::engine::Engine;

/// The typed methods as previews ([`Engine::previews`]): each answers what its tool would
/// answer against the current state and commits nothing — a view's read, typed (the JSON
/// form is [`Engine::preview`]).
pub struct Previews<'e, S: Storage>(&'e Engine<S>);

impl<S: Storage> Engine<S> {
    /// Every tool's typed method, previewed: nothing is committed.
    pub fn previews(&self) -> Previews<'_, S> {
        Previews(self)
    }
}

impl<'e, S: Storage> Previews<'e, S> {
    pub(crate) fn engine(&self) -> &'e Engine<S> {
        self.0
    }
}
