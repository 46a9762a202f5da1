//! What the sibling capability reads and stages through, beyond what the handoff capability
//! does: `SiblingState` and `SiblingTx`, implemented by the engine's assembly above it.
use crate::ground::ids::SessionId;
use crate::handoff::store::{HandoffState, HandoffTx};
use crate::sibling::{AuditEntry, SiblingSession};
use rustc_hash::FxHashMap;
use std::sync::Arc;

/// The committed workspace, as the sibling capability reads it.
pub(crate) trait SiblingState: HandoffState {
    /// Sibling sessions by id.
    fn sessions(&self) -> &FxHashMap<SessionId, Arc<SiblingSession>>;
    /// Active sibling sessions.
    fn active_sessions(&self) -> impl Iterator<Item = &SiblingSession>;
}

/// One command in flight, as the sibling capability reads and stages through it.
pub(crate) trait SiblingTx<'a>: HandoffTx<'a, St: SiblingState> {
    /// Stages a sibling session.
    fn put_session(&mut self, s: SiblingSession);
    /// Stages an audit log entry (X5).
    fn put_audit(&mut self, e: AuditEntry);
}
