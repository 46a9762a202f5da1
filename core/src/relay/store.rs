//! What the relay capability reads and stages through, beyond what the handoff capability
//! does: `RelayState` and `RelayTx`, implemented by the engine's assembly above it.
use crate::ground::ids::RelayThreadId;
use crate::ground::sharded::Sharded;
use crate::handoff::store::{HandoffState, HandoffTx};
use crate::relay::trust::TrustPolicy;
use crate::relay::{InboxEntry, RelayMessage, RelayStatus, RelayThread, Teammate};
use crate::sibling::AuditEntry;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The committed workspace, as the relay capability reads it.
pub(crate) trait RelayState: HandoffState {
    /// Teammates by handle.
    fn teammates(&self) -> &BTreeMap<String, Teammate>;
    /// Trust policies by recipient handle.
    fn trust(&self) -> &BTreeMap<String, TrustPolicy>;
    /// Relay threads by id.
    fn relay_threads(&self) -> &Sharded<RelayThreadId, Arc<RelayThread>>;
    /// Per relay thread: sender messages the recipient has seen (I2).
    fn relay_seen(&self) -> &Sharded<RelayThreadId, u64>;
    /// The audit log, oldest first (X5).
    fn audit(&self) -> &[AuditEntry];
    /// The message an idempotency key already sent on a thread (I7).
    fn idempotent(&self, thread_id: &str, from: &str, key: &str) -> Option<&RelayMessage>;
    /// A recipient's inbox entries in one status before `before`, newest first.
    fn inbox_desc(&self, recipient: &str, status: RelayStatus, before: u64)
        -> impl Iterator<Item = (u64, &InboxEntry)>;
    /// Former inbox positions of a recipient's threads that an update after `snapshot`
    /// moved: (former update_seq, entry).
    fn inbox_moved_after(&self, recipient: &str, snapshot: u64) -> impl Iterator<Item = (u64, &InboxEntry)>;
}

/// One command in flight, as the relay capability reads and stages through it.
pub(crate) trait RelayTx<'a>: HandoffTx<'a, St: RelayState> {
    /// Stages a relay thread.
    fn put_relay_thread(&mut self, t: RelayThread);
    /// Stages a relay message.
    fn put_relay_message(&mut self, m: RelayMessage);
    /// Stages what the recipient has seen of a thread (I2).
    fn put_relay_seen(&mut self, thread_id: RelayThreadId, seen: u64);
    /// Stages a teammate.
    fn put_teammate(&mut self, t: Teammate);
    /// Stages a recipient's trust policy.
    fn put_trust(&mut self, handle: String, policy: TrustPolicy);
    /// A relay thread as this command sees it.
    fn relay_thread(&self, id: &str) -> Option<Arc<RelayThread>>;
    /// A relay thread's messages in order, staged ones included.
    fn relay_messages_of(&self, thread_id: &str) -> Vec<RelayMessage>;
}
