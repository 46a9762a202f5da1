//! One command in flight (`Tx`): reads see the state plus the command's own staged
//! changes; handlers stage changes and effects here, and the engine stores them as one record.
use crate::coord::ask::Ask;
use crate::coord::leg::{Leg, LegGroup, LegSession};
use crate::coord::schedule::{Schedule, Skill};
use crate::coord::store::CoordTx;
use crate::coord::todo::TodoPlan;
use crate::engine::log::{Change, Keyed};
use crate::engine::state::State;
use crate::ground::ids::{IdKind, IdSource, RelayThreadId, ThreadId};
use crate::ground::time::Timestamp;
use crate::handoff::agent::Agent;
use crate::handoff::calls::CallSnapshot;
use crate::handoff::effect::Effect;
use crate::handoff::mailbox::Message;
use crate::handoff::store::HandoffTx;
use crate::handoff::thread::{Activity, Thread};
use crate::handoff::Handoff;
use crate::relay::store::RelayTx;
use crate::relay::trust::TrustPolicy;
use crate::relay::{RelayMessage, RelayThread, Teammate};
use crate::sibling::store::SiblingTx;
use crate::sibling::{AuditEntry, SiblingSession};
use std::sync::Arc;

/// The stored form (log format v2) of a command's staged changes: each later version of a
/// handoff, thread, activity record or message becomes a delta against the version before
/// it — an earlier change of the same command, or the state's. New records stay whole; every
/// other change is kept as staged. Applying the result to `st` gives what applying the
/// staged versions would (checked against the v1 fixtures, which hold whole versions).
pub(crate) fn stored_form(st: &State, changes: Vec<Change>) -> Vec<Change> {
    use crate::handoff::mailbox::MessageDelta;
    use crate::handoff::thread::{ActivityDelta, ThreadDelta};
    use crate::handoff::HandoffDelta;
    use rustc_hash::FxHashMap;
    // For each change of a keyed record: the position of the same record's change before it.
    let mut last: FxHashMap<(Keyed, &str), usize> = FxHashMap::default();
    let before: Vec<Option<usize>> = changes
        .iter()
        .enumerate()
        .map(|(i, c)| match c.keyed() {
            Some((kind, id, false)) => last.insert((kind, id), i),
            _ => None,
        })
        .collect();
    let deltas: Vec<Option<Change>> = changes
        .iter()
        .zip(&before)
        .map(|(c, b)| {
            let prev = b.map(|j| &changes[j]);
            match c {
                Change::Handoff(h) => {
                    let old = match prev {
                        Some(Change::Handoff(o)) => Some(o),
                        _ => st.handoffs.get(&h.handoff_id),
                    }?;
                    let set = Box::new(HandoffDelta::between(old, h));
                    Some(Change::HandoffDelta { handoff_id: h.handoff_id.clone(), set })
                }
                Change::Thread(t) => {
                    let old = match prev {
                        Some(Change::Thread(o)) => Some(o),
                        _ => st.threads.get(&t.thread_id),
                    }?;
                    let set = Box::new(ThreadDelta::between(old, t));
                    Some(Change::ThreadDelta { thread_id: t.thread_id.clone(), set })
                }
                Change::Activity { thread_id, activity } => {
                    let old = match prev {
                        Some(Change::Activity { activity: o, .. }) => Some(o),
                        _ => st.activity.get(thread_id),
                    }?;
                    let set = Box::new(ActivityDelta::between(old, activity));
                    Some(Change::ActivityDelta { thread_id: thread_id.clone(), set })
                }
                Change::Message(m) => {
                    let old = match prev {
                        Some(Change::Message(o)) => Some(o),
                        _ => st.messages.get(&m.message_id),
                    }?;
                    let set = Box::new(MessageDelta::between(old, m));
                    Some(Change::MessageDelta { message_id: m.message_id.clone(), set })
                }
                _ => None,
            }
        })
        .collect();
    drop(last);
    changes.into_iter().zip(deltas).map(|(c, d)| d.unwrap_or(c)).collect()
}

/// One command in flight: reads see the state plus this command's own staged changes.
pub(crate) struct Tx<'a> {
    pub st: &'a State,
    ids: &'a dyn IdSource,
    id_seq: u64,
    /// Wrapper nonces drawn by this command so far.
    nonces: std::cell::Cell<u64>,
    pub now: Timestamp,
    changes: Vec<Change>,
    pub effects: Vec<Effect>,
}

impl<'a> Tx<'a> {
    /// A command against `st` at `now`, drawing ids from `ids`.
    pub(super) fn new(st: &'a State, ids: &'a dyn IdSource, now: Timestamp) -> Self {
        Tx {
            st,
            ids,
            id_seq: st.id_seq,
            nonces: std::cell::Cell::new(0),
            now,
            changes: Vec::new(),
            effects: Vec::new(),
        }
    }

    /// What the command staged: its changes, its effects, and the id counter after it.
    pub(super) fn into_parts(self) -> (Vec<Change>, Vec<Effect>, u64) {
        (self.changes, self.effects, self.id_seq)
    }

    /// Stages a change.
    pub(crate) fn put(&mut self, change: Change) {
        self.changes.push(change);
    }
}

impl<'a> HandoffTx<'a> for Tx<'a> {
    type St = State;

    fn st(&self) -> &'a State {
        self.st
    }

    fn now(&self) -> Timestamp {
        self.now
    }

    fn put_agent(&mut self, a: Agent) {
        self.put(Change::Agent(Box::new(a)));
    }

    fn put_turn_call(&mut self, thread_id: &str, call: CallSnapshot) {
        self.put(Change::TurnCall { thread_id: thread_id.into(), call: Box::new(call) });
    }

    fn reset_turn(&mut self, thread_id: &str) {
        self.put(Change::TurnReset { thread_id: thread_id.into() });
    }

    fn set_sweep(&mut self, due: Option<Timestamp>) {
        self.put(Change::Sweep { due });
    }

    /// Draws a new id, with its sequence number (a creation order across all records).
    fn new_seq_id<T: From<String>>(&mut self, kind: IdKind) -> (T, u64) {
        self.id_seq += 1;
        (T::from(self.ids.id(kind, self.id_seq)), self.id_seq)
    }

    /// A fresh nonce for one provenance wrapper (I4), from the id source: the `k`-th wrap of
    /// the command that would be record `log_seq + 1`. Never stored and never an id: a sender
    /// cannot have seen it before its text was stored (that store moved `log_seq` past it).
    fn nonce(&self) -> String {
        let k = self.nonces.get() + 1;
        self.nonces.set(k);
        self.ids.id(IdKind::Nonce, ((self.st.log_seq + 1) << 32) | (k & 0xFFFF_FFFF))
    }

    /// Stages a handoff.
    fn put_handoff(&mut self, h: Handoff) {
        self.put(Change::Handoff(Arc::new(h)));
    }

    /// Stages a thread.
    fn put_thread(&mut self, t: Thread) {
        self.put(Change::Thread(Arc::new(t)));
    }

    /// Stages a message.
    fn put_message(&mut self, m: Message) {
        self.put(Change::Message(Arc::new(m)));
    }

    /// Stages an activity record.
    fn put_activity(&mut self, thread_id: &str, activity: Activity) {
        self.put(Change::Activity { thread_id: thread_id.into(), activity: Arc::new(activity) });
    }

    /// Emits an effect (kept only if the command commits).
    fn emit(&mut self, e: Effect) {
        self.effects.push(e);
    }

    /// A handoff as this command sees it.
    fn handoff(&self, id: &str) -> Option<&Handoff> {
        self.changes
            .iter()
            .rev()
            .find_map(|c| match c {
                Change::Handoff(h) if h.handoff_id == id => Some(&**h),
                _ => None,
            })
            .or_else(|| self.st.handoffs.get(id).map(|h| &**h))
    }

    /// A handoff as this command sees it, shared (cheap to hold while staging more changes).
    fn handoff_arc(&self, id: &str) -> Option<Arc<Handoff>> {
        self.changes
            .iter()
            .rev()
            .find_map(|c| match c {
                Change::Handoff(h) if h.handoff_id == id => Some(h.clone()),
                _ => None,
            })
            .or_else(|| self.st.handoffs.get(id).cloned())
    }

    /// A thread as this command sees it, shared (no copy of the record).
    fn thread_arc(&self, id: &str) -> Option<Arc<Thread>> {
        self.changes
            .iter()
            .rev()
            .find_map(|c| match c {
                Change::Thread(t) if t.thread_id == id => Some(t.clone()),
                _ => None,
            })
            .or_else(|| self.st.threads.get(id).cloned())
    }

    /// Draws a sequence number (orders updates across records).
    fn next_seq(&mut self) -> u64 {
        self.id_seq += 1;
        self.id_seq
    }

    /// The last sequence number drawn.
    fn current_seq(&self) -> u64 {
        self.id_seq
    }

    /// A thread as this command sees it.
    fn thread(&self, id: &str) -> Option<&Thread> {
        self.changes
            .iter()
            .rev()
            .find_map(|c| match c {
                Change::Thread(t) if t.thread_id == id => Some(&**t),
                _ => None,
            })
            .or_else(|| self.st.threads.get(id).map(|t| &**t))
    }

    /// A thread's activity as this command sees it (default when none reported yet).
    fn activity(&self, id: &str) -> Activity {
        self.changes
            .iter()
            .rev()
            .find_map(|c| match c {
                Change::Activity { thread_id, activity } if thread_id == id => Some(&**activity),
                _ => None,
            })
            .or_else(|| self.st.activity.get(id).map(|a| &**a))
            .cloned()
            .unwrap_or_default()
    }

    /// The delivery sweep's due time as this command sees it.
    fn sweep_due(&self) -> Option<Timestamp> {
        self.changes
            .iter()
            .rev()
            .find_map(|c| match c {
                Change::Sweep { due } => Some(*due),
                _ => None,
            })
            .unwrap_or(self.st.sweep_due)
    }

    /// The handoff whose child is `thread_id`, as this command sees it.
    fn handoff_of_child(&self, thread_id: &str) -> Option<&Handoff> {
        let id = &self.st.handoff_of_child(thread_id)?.handoff_id;
        self.handoff(id)
    }
}

impl<'a> CoordTx<'a> for Tx<'a> {
    fn put_schedule(&mut self, s: Schedule) {
        self.put(Change::Schedule(Arc::new(s)));
    }

    fn put_skill(&mut self, s: Skill) {
        self.put(Change::Skill(s));
    }

    fn put_todo(&mut self, plan: TodoPlan) {
        self.put(Change::Todo(plan));
    }

    fn put_report(&mut self, task_id: String, path: String) {
        self.put(Change::Report { task_id, path });
    }

    fn put_ask(&mut self, ask: Ask) {
        self.put(Change::Ask(Arc::new(ask)));
    }

    fn put_leg_session(&mut self, s: LegSession) {
        self.put(Change::LegSession(Box::new(s)));
    }

    fn put_leg_group(&mut self, g: LegGroup) {
        self.put(Change::LegGroup(Box::new(g)));
    }

    fn put_leg(&mut self, leg: Leg) {
        self.put(Change::Leg(Arc::new(leg)));
    }

    fn put_leg_report(&mut self, path: String, text: String) {
        self.put(Change::LegReport { path, text });
    }

    /// A leg as this command sees it.
    fn leg(&self, id: &str) -> Option<Leg> {
        self.changes
            .iter()
            .rev()
            .find_map(|c| match c {
                Change::Leg(l) if l.leg_id == id => Some((**l).clone()),
                _ => None,
            })
            .or_else(|| self.st.legs.get(id).map(|l| (**l).clone()))
    }

    /// Legs staged by this command (latest version of each).
    fn staged_legs(&self) -> Vec<Leg> {
        let mut out: Vec<Leg> = Vec::new();
        for c in &self.changes {
            if let Change::Leg(l) = c {
                out.retain(|o| o.leg_id != l.leg_id);
                out.push((**l).clone());
            }
        }
        out
    }

    /// Whether this command already stored a report at `path`.
    fn staged_report(&self, path: &str) -> bool {
        self.changes.iter().any(|c| matches!(c, Change::LegReport { path: p, .. } if p == path))
    }

    /// The thread of a leg staged by this command.
    fn staged_leg_thread(&self, leg_id: &str) -> Option<ThreadId> {
        self.changes.iter().rev().find_map(|c| match c {
            Change::Thread(t) if t.leg_id.as_deref() == Some(leg_id) => Some(t.thread_id.clone()),
            _ => None,
        })
    }
}

impl<'a> SiblingTx<'a> for Tx<'a> {
    fn put_session(&mut self, s: SiblingSession) {
        self.put(Change::Session(Arc::new(s)));
    }

    fn put_audit(&mut self, e: AuditEntry) {
        self.put(Change::Audit(Box::new(e)));
    }
}

impl<'a> RelayTx<'a> for Tx<'a> {
    fn put_relay_thread(&mut self, t: RelayThread) {
        self.put(Change::RelayThread(Arc::new(t)));
    }

    fn put_relay_message(&mut self, m: RelayMessage) {
        self.put(Change::RelayMessage(Arc::new(m)));
    }

    fn put_relay_seen(&mut self, thread_id: RelayThreadId, seen: u64) {
        self.put(Change::RelaySeen { thread_id, seen });
    }

    fn put_teammate(&mut self, t: Teammate) {
        self.put(Change::Teammate(Box::new(t)));
    }

    fn put_trust(&mut self, handle: String, policy: TrustPolicy) {
        self.put(Change::Trust { handle, policy: Box::new(policy) });
    }

    /// A relay thread as this command sees it.
    fn relay_thread(&self, id: &str) -> Option<Arc<RelayThread>> {
        self.changes
            .iter()
            .rev()
            .find_map(|c| match c {
                Change::RelayThread(t) if t.thread_id == id => Some(t.clone()),
                _ => None,
            })
            .or_else(|| self.st.relay_threads.get(id).cloned())
    }

    /// A relay thread's messages in order, staged ones included.
    fn relay_messages_of(&self, thread_id: &str) -> Vec<RelayMessage> {
        let mut all: Vec<RelayMessage> = self.st.relay_messages_of(thread_id).cloned().collect();
        for c in &self.changes {
            if let Change::RelayMessage(m) = c {
                if m.thread_id == thread_id {
                    all.push((**m).clone());
                }
            }
        }
        all
    }
}
