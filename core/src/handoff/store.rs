//! What the handoff capability reads and stages through: the workspace as it reads it
//! (`HandoffState`) and one command in flight (`HandoffTx`). The engine's assembly, which sits
//! above every capability, implements both; nothing in this folder names the state or the
//! transaction it is given.
use crate::ground::config::Config;
use crate::ground::ids::{HandoffId, IdKind, MessageId, ThreadId};
use crate::ground::records::Records;
use crate::ground::time::Timestamp;
use crate::handoff::agent::Agent;
use crate::handoff::blueprint::BlueprintManifest;
use crate::handoff::calls::{CallSnapshot, TurnCalls};
use crate::handoff::effect::Effect;
use crate::handoff::live::Due;
use crate::handoff::mailbox::Message;
use crate::handoff::thread::{Activity, Thread};
use crate::handoff::Handoff;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The committed workspace, as the handoff capability reads it.
pub(crate) trait HandoffState {
    /// Settings.
    fn config(&self) -> &Config;
    /// Agents by bot id.
    fn agents(&self) -> &BTreeMap<String, Agent>;
    /// Blueprint manifests by name.
    fn blueprints(&self) -> &BTreeMap<String, BlueprintManifest>;
    /// Threads by id.
    fn threads(&self) -> &Records<ThreadId, Thread>;
    /// Activity by thread id.
    fn activities(&self) -> &Records<ThreadId, Activity>;
    /// Handoffs by id.
    fn handoffs(&self) -> &Records<HandoffId, Handoff>;
    /// Messages by id.
    fn messages(&self) -> &Records<MessageId, Message>;
    /// Tool calls of each thread's current turn (A8).
    fn turn_calls(&self) -> &Records<ThreadId, TurnCalls>;
    /// The delivery sweep's next due time, as committed (M5).
    fn next_sweep(&self) -> Option<Timestamp>;
    /// An agent by bot id or display name (G2).
    fn resolve_bot(&self, name: &str) -> Option<&Agent>;
    /// Open handoffs a time rule applies to at or before `now`, oldest first (the order of
    /// `open_handoffs`).
    fn handoffs_due(&self, now: Timestamp) -> Vec<&Handoff>;
    /// The earliest time a time rule applies to an open handoff.
    fn next_handoff_due(&self) -> Option<Timestamp>;
    /// When the time rules next apply to `h`.
    fn due_of(&self, h: &Handoff) -> Due;
    /// Non-terminal handoffs, oldest first.
    fn open_handoffs(&self) -> impl Iterator<Item = &Handoff>;
    /// Mail waiting for a thread, oldest first.
    fn queued_mail(&self, thread_id: &str) -> impl Iterator<Item = &Message>;
    /// The next thread after `after` with mail waiting (all of them in turn, in id order,
    /// without holding the state borrowed between steps).
    fn next_thread_with_mail(&self, after: Option<&ThreadId>) -> Option<&ThreadId>;
    /// Send times from a bot to a thread, oldest first (M8).
    fn pair_sends(&self, from_bot: &str, to_thread: &str) -> &[Timestamp];
    /// Handoffs a thread started, in creation order.
    fn handoffs_from(&self, thread_id: &str) -> impl Iterator<Item = &Handoff>;
    /// Threads with a turn running.
    fn busy_count(&self) -> usize;
    /// Live threads of a bot.
    fn threads_of(&self, bot_id: &str) -> u32;
}

/// One command in flight, as the handoff capability reads and stages through it: reads see
/// the committed state (`st`, borrowed for the whole command) plus what this command staged.
pub(crate) trait HandoffTx<'a> {
    /// The committed state.
    type St: HandoffState + 'a;
    /// The committed state, for as long as the command runs.
    fn st(&self) -> &'a Self::St;
    /// The command's time.
    fn now(&self) -> Timestamp;
    /// Draws a new id, with its sequence number (a creation order across all records).
    fn new_seq_id<T: From<String>>(&mut self, kind: IdKind) -> (T, u64);
    /// A fresh nonce for one provenance wrapper (I4).
    fn nonce(&self) -> String;
    /// Draws a sequence number (orders updates across records).
    fn next_seq(&mut self) -> u64;
    /// The last sequence number drawn.
    fn current_seq(&self) -> u64;
    /// Emits an effect (kept only if the command commits).
    fn emit(&mut self, e: Effect);
    /// Stages a handoff.
    fn put_handoff(&mut self, h: Handoff);
    /// Stages a thread.
    fn put_thread(&mut self, t: Thread);
    /// Stages a message.
    fn put_message(&mut self, m: Message);
    /// Stages an activity record.
    fn put_activity(&mut self, thread_id: &str, activity: Activity);
    /// Stages an agent.
    fn put_agent(&mut self, a: Agent);
    /// Stages one tool call of a thread's current turn (A8).
    fn put_turn_call(&mut self, thread_id: &str, call: CallSnapshot);
    /// Stages the start of a thread's new turn: its calls so far are dropped (A8).
    fn reset_turn(&mut self, thread_id: &str);
    /// Stages the delivery sweep's next due time (M5).
    fn set_sweep(&mut self, due: Option<Timestamp>);
    /// A handoff as this command sees it.
    fn handoff(&self, id: &str) -> Option<&Handoff>;
    /// A handoff as this command sees it, shared.
    fn handoff_arc(&self, id: &str) -> Option<Arc<Handoff>>;
    /// A thread as this command sees it.
    fn thread(&self, id: &str) -> Option<&Thread>;
    /// A thread as this command sees it, shared.
    fn thread_arc(&self, id: &str) -> Option<Arc<Thread>>;
    /// A thread's activity as this command sees it (default when none reported yet).
    fn activity(&self, id: &str) -> Activity;
    /// The delivery sweep's due time as this command sees it.
    fn sweep_due(&self) -> Option<Timestamp>;
    /// The handoff whose child is `thread_id`, as this command sees it.
    fn handoff_of_child(&self, thread_id: &str) -> Option<&Handoff>;
}
