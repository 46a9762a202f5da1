//! The engine's state: records plus indexes derived from them. `apply` is its only writer.
use crate::coord::ask::Ask;
use crate::coord::leg::{Leg, LegGroup, LegSession};
use crate::coord::schedule::{Schedule, ScheduleStatus, Skill};
use crate::coord::store::CoordState;
use crate::coord::todo::TodoPlan;
use crate::engine::log::{Change, Keyed};
use crate::ground::config::Config;
use crate::ground::ids::{
    BotId, GroupId, HandoffId, LegId, MessageId, QuestionId, RelayThreadId, ScheduleId, SessionId, ThreadId,
};
use crate::ground::lists;
use crate::ground::records::Records;
use crate::ground::sharded::Sharded;
use crate::ground::time::Timestamp;
use crate::handoff::agent::Agent;
use crate::handoff::blueprint::BlueprintManifest;
use crate::handoff::calls::TurnCalls;
use crate::handoff::mailbox::{MailState, Message, RATE_LIMIT};
use crate::handoff::store::HandoffState;
use crate::handoff::thread::{Activity, Thread};
use crate::handoff::Handoff;
use crate::relay::store::RelayState;
use crate::relay::trust::TrustPolicy;
use crate::relay::{InboxEntry, RelayMessage, RelayStatus, RelayThread, Teammate};
use crate::sibling::store::SiblingState;
use crate::sibling::{AuditEntry, SessionStatus, SiblingSession};
use rustc_hash::FxHashMap as HashMap;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// Everything the engine knows. Two engines with equal `State` answer every call alike.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct State {
    /// Settings.
    pub config: Config,
    /// Agents by bot id.
    pub agents: BTreeMap<String, Agent>,
    /// Blueprint manifests by name.
    pub blueprints: BTreeMap<String, BlueprintManifest>,
    /// Threads by id.
    pub threads: Records<ThreadId, Thread>,
    /// Activity by thread id.
    pub activity: Records<ThreadId, Activity>,
    /// Handoffs by id.
    pub handoffs: Records<HandoffId, Handoff>,
    /// Messages by id.
    pub messages: Records<MessageId, Message>,
    /// Teammates by handle.
    pub teammates: BTreeMap<String, Teammate>,
    /// Trust policies by recipient handle.
    pub trust: BTreeMap<String, TrustPolicy>,
    /// Relay threads by id.
    pub relay_threads: Sharded<RelayThreadId, Arc<RelayThread>>,
    /// Relay messages by id.
    pub relay_messages: Sharded<MessageId, Arc<RelayMessage>>,
    /// Per relay thread: sender messages the recipient has seen (I2).
    pub relay_seen: Sharded<RelayThreadId, u64>,
    /// Sibling sessions by id.
    pub sessions: HashMap<SessionId, Arc<SiblingSession>>,
    /// The audit log, oldest first (X5).
    pub audit: Vec<AuditEntry>,
    /// Schedules by id.
    pub schedules: BTreeMap<ScheduleId, Arc<Schedule>>,
    /// Scheduler skills by name.
    pub skills: BTreeMap<String, Skill>,
    /// Checklists by task.
    pub todos: BTreeMap<String, TodoPlan>,
    /// Report files written per task.
    pub reports: BTreeMap<String, Vec<String>>,
    /// Questions to the user by id.
    pub asks: BTreeMap<QuestionId, Arc<Ask>>,
    /// Tool calls of each thread's current turn, clamped (A8). Kept apart from `Activity` so
    /// an activity update neither copies nor logs them again; held sealed like the records.
    pub turn_calls: Records<ThreadId, TurnCalls>,
    /// Legs by id.
    pub legs: BTreeMap<LegId, Arc<Leg>>,
    /// Named leg sessions by id.
    pub leg_sessions: BTreeMap<String, LegSession>,
    /// Background groups by id.
    pub leg_groups: BTreeMap<GroupId, LegGroup>,
    /// Stored leg reports by path.
    pub leg_reports: BTreeMap<String, String>,
    /// Next delivery sweep (M5).
    pub sweep_due: Option<Timestamp>,
    /// Ids drawn so far.
    pub id_seq: u64,
    /// Records applied so far.
    pub log_seq: u64,
    /// Derived indexes.
    pub(crate) idx: Indexes,
}

/// The open handoffs a thread is the child of: nearly always one, held without a set then
/// (a set is an allocation and a tree node for each open handoff of a large workspace).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum OpenHandoffs {
    One(HandoffId),
    Many(BTreeSet<HandoffId>),
}

/// Notes handoff `id` as open in `children` under its child thread `c`.
fn open_child(children: &mut Sharded<ThreadId, OpenHandoffs>, c: ThreadId, id: &HandoffId) {
    children.entry(c).and_modify(|open| open.insert(id)).or_insert_with(|| OpenHandoffs::One(id.clone()));
}

impl OpenHandoffs {
    /// Adds `id` (once).
    fn insert(&mut self, id: &HandoffId) {
        match self {
            OpenHandoffs::One(one) if one == id => {}
            OpenHandoffs::One(one) => {
                let mut set = BTreeSet::new();
                set.insert(one.clone());
                set.insert(id.clone());
                *self = OpenHandoffs::Many(set);
            }
            OpenHandoffs::Many(set) => {
                set.insert(id.clone());
            }
        }
    }

    /// Takes `id` out; `true` when none is left.
    fn remove(&mut self, id: &HandoffId) -> bool {
        match self {
            OpenHandoffs::One(one) => one == id,
            OpenHandoffs::Many(set) => {
                set.remove(id);
                set.is_empty()
            }
        }
    }

    /// Adds each to `to`.
    fn copy_to(&self, to: &mut Vec<HandoffId>) {
        match self {
            OpenHandoffs::One(one) => to.push(one.clone()),
            OpenHandoffs::Many(set) => to.extend(set.iter().cloned()),
        }
    }
}

/// Lookups kept in step with the records, so no query scans closed handoffs.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Indexes {
    /// Non-terminal handoffs, oldest first (seq → id).
    pub open: BTreeMap<u64, HandoffId>,
    /// Waiting mail per recipient thread (seq → message id).
    pub queued_mail: BTreeMap<ThreadId, BTreeMap<u64, MessageId>>,
    /// Send times per (sender bot, recipient thread), oldest first (M8): the last
    /// [`RATE_LIMIT`], all that `rate_wait` reads (whether that many fall in the window, and
    /// when the oldest of them leaves it). Every send of a busy pair was kept before.
    pub pair_sends: Sharded<(BotId, ThreadId), Vec<Timestamp>>,
    /// Threads with a turn running.
    pub busy: BTreeSet<ThreadId>,
    /// Live (not deleted) threads per bot.
    pub threads_per_bot: HashMap<String, u32>,
    /// Parent thread → handoffs it started, in creation order.
    pub by_parent: Sharded<ThreadId, Vec<HandoffId>>,
    /// A leg's thread.
    pub thread_of_leg: HashMap<LegId, ThreadId>,
    /// Teammates a bot acts as, by handle.
    pub teammates_of_bot: HashMap<String, BTreeSet<String>>,
    /// Inbox order, current positions: (recipient, status, update_seq) → entry.
    pub inbox: BTreeMap<(String, RelayStatus, u64), InboxEntry>,
    /// Former positions, keyed by the update that moved them: (recipient, moved at
    /// update_seq, former update_seq) → entry. A cursor with snapshot S reads only the ones
    /// moved after S, so a page costs its size plus the updates since its snapshot.
    pub inbox_moved: BTreeMap<(String, u64, u64), InboxEntry>,
    /// Relay messages in thread order: (thread, sequence_no) → message id.
    pub relay_msgs: BTreeMap<(RelayThreadId, u64), MessageId>,
    /// Active sibling sessions.
    pub active_sessions: BTreeSet<SessionId>,
    /// Active schedules.
    pub active_schedules: BTreeSet<ScheduleId>,
    /// Legs not yet terminal, in queue order (seq → id).
    pub live_legs: BTreeMap<u64, LegId>,
    /// Idempotency keys: (thread, author, key) → message id (I7).
    pub idempotency: Sharded<(RelayThreadId, String, String), MessageId>,
    /// Open handoffs (by sequence number, as in `open`) by when a time rule next applies to
    /// them (G9, S7, S8), so the next deadline and a tick cost what is due, not every open
    /// handoff.
    pub due: BTreeSet<(Timestamp, u64)>,
    /// Each open handoff's entry in `due`, by sequence number.
    pub due_at: HashMap<u64, Timestamp>,
    /// Open handoffs by child thread: whose due time a change of that thread or its activity
    /// moves. One entry per open handoff's child, so it grows with the workspace (split, as
    /// the records' maps are).
    pub open_children: Sharded<ThreadId, OpenHandoffs>,
    /// Handoffs whose due entry a change moved, refreshed once each when the record (or the
    /// snapshot) is applied whole ([`State::settle_due`]): empty between records.
    pub due_moved: Vec<HandoffId>,
    /// `due`, `due_at` and `open_children` are not kept (empty) until they are built whole
    /// ([`State::build_due`]): what is due is found by looking at every open handoff
    /// meanwhile. A host that reads a long log before its first picture builds them after it
    /// ([`crate::Engine::defer_due_index`]).
    pub due_deferred: bool,
}

impl State {
    /// Applies one change. The only place records are written. Refused (with the reason)
    /// only for a delta whose record does not exist — a damaged log; the state is unchanged.
    pub fn apply(&mut self, change: Change) -> Result<(), String> {
        match change {
            Change::Configured(c) => self.config = *c,
            Change::Agent(a) => {
                self.agents.insert(a.bot_id.clone(), *a);
            }
            Change::Blueprint(b) => {
                self.blueprints.insert(b.name.clone(), b);
            }
            Change::Thread(t) => {
                let thread_id = t.thread_id.clone();
                let was_live =
                    self.threads.insert_after(thread_id.clone(), t.clone(), |o| o.map(|o| o.deleted_at.is_none()));
                index_thread(&mut self.idx, was_live, &t);
                self.due_moved_by_child(&thread_id);
            }
            Change::ThreadDelta { thread_id, set } => {
                let slot = self.threads.get_mut(&thread_id).ok_or_else(|| missing(Keyed::Thread.name(), &thread_id))?;
                let was_live = slot.deleted_at.is_none();
                set.apply_to(Arc::make_mut(slot));
                index_thread(&mut self.idx, Some(was_live), slot);
                self.due_moved_by_child(&thread_id);
            }
            Change::Activity { thread_id, activity } => {
                index_activity(&mut self.idx, &thread_id, &activity);
                self.activity.insert(thread_id.clone(), activity);
                self.due_moved_by_child(&thread_id);
            }
            Change::ActivityDelta { thread_id, set } => {
                let slot =
                    self.activity.get_mut(&thread_id).ok_or_else(|| missing(Keyed::Activity.name(), &thread_id))?;
                set.apply_to(Arc::make_mut(slot));
                index_activity(&mut self.idx, &thread_id, slot);
                self.due_moved_by_child(&thread_id);
            }
            Change::Handoff(h) => {
                let handoff_id = h.handoff_id.clone();
                let is_new = self.handoffs.insert_after(handoff_id.clone(), h.clone(), |o| o.is_none());
                index_handoff(&mut self.idx, is_new, &h);
                self.due_moved_by_handoff(&handoff_id);
            }
            Change::HandoffDelta { handoff_id, set } => {
                let slot =
                    self.handoffs.get_mut(&handoff_id).ok_or_else(|| missing(Keyed::Handoff.name(), &handoff_id))?;
                set.apply_to(Arc::make_mut(slot));
                index_handoff(&mut self.idx, false, slot);
                self.due_moved_by_handoff(&handoff_id);
            }
            Change::Message(m) => {
                let is_new = self.messages.insert_after(m.message_id.clone(), m.clone(), |o| o.is_none());
                index_message(&mut self.idx, is_new, &m);
            }
            Change::MessageDelta { message_id, set } => {
                let slot =
                    self.messages.get_mut(&message_id).ok_or_else(|| missing(Keyed::Message.name(), &message_id))?;
                set.apply_to(Arc::make_mut(slot));
                index_message(&mut self.idx, false, slot);
            }
            Change::Teammate(t) => {
                if let Some(bot) = self.teammates.get(&t.handle).and_then(|old| old.bot_id.clone()) {
                    if let Some(handles) = self.idx.teammates_of_bot.get_mut(&bot) {
                        handles.remove(&t.handle);
                    }
                }
                if let Some(bot) = &t.bot_id {
                    self.idx.teammates_of_bot.entry(bot.clone()).or_default().insert(t.handle.clone());
                }
                self.teammates.insert(t.handle.clone(), *t);
            }
            Change::Trust { handle, policy } => {
                self.trust.insert(handle, *policy);
            }
            Change::RelayThread(t) => {
                if let Some(old) = self.relay_threads.get(&t.thread_id) {
                    if old.update_seq != t.update_seq {
                        let key = (old.recipient.clone(), old.status, old.update_seq);
                        if let Some(e) = self.idx.inbox.remove(&key) {
                            self.idx.inbox_moved.insert((old.recipient.clone(), t.update_seq, old.update_seq), e);
                        }
                    }
                }
                self.idx.inbox.insert(
                    (t.recipient.clone(), t.status, t.update_seq),
                    InboxEntry { thread_id: t.thread_id.clone(), status: t.status, updated_at: t.updated_at },
                );
                self.relay_threads.insert(t.thread_id.clone(), t);
            }
            Change::RelayMessage(m) => {
                self.idx.relay_msgs.insert((m.thread_id.clone(), m.sequence_no), m.message_id.clone());
                if let Some(k) = &m.idempotency_key {
                    self.idx.idempotency.insert((m.thread_id.clone(), m.from.clone(), k.clone()), m.message_id.clone());
                }
                self.relay_messages.insert(m.message_id.clone(), m);
            }
            Change::RelaySeen { thread_id, seen } => {
                self.relay_seen.insert(thread_id, seen);
            }
            Change::Session(x) => {
                if x.status == SessionStatus::Active {
                    self.idx.active_sessions.insert(x.session_id.clone());
                } else {
                    self.idx.active_sessions.remove(&x.session_id);
                }
                self.sessions.insert(x.session_id.clone(), x);
            }
            Change::Audit(a) => self.audit.push(*a),
            Change::Schedule(x) => {
                if x.status == ScheduleStatus::Active {
                    self.idx.active_schedules.insert(x.schedule_id.clone());
                } else {
                    self.idx.active_schedules.remove(&x.schedule_id);
                }
                self.schedules.insert(x.schedule_id.clone(), x);
            }
            Change::Skill(k) => {
                self.skills.insert(k.name.clone(), k);
            }
            Change::Todo(t) => {
                self.todos.insert(t.task_id.clone(), t);
            }
            Change::Report { task_id, path } => self.reports.entry(task_id).or_default().push(path),
            Change::Leg(l) => {
                if l.status.is_terminal() {
                    self.idx.live_legs.remove(&l.seq);
                } else {
                    self.idx.live_legs.insert(l.seq, l.leg_id.clone());
                }
                self.legs.insert(l.leg_id.clone(), l);
            }
            Change::LegSession(x) => {
                self.leg_sessions.insert(x.session_id.clone(), *x);
            }
            Change::LegGroup(g) => {
                self.leg_groups.insert(g.group_id.clone(), *g);
            }
            Change::LegReport { path, text } => {
                self.leg_reports.insert(path, text);
            }
            Change::TurnCall { thread_id, call } => match self.turn_calls.get_mut(&thread_id) {
                Some(calls) => Arc::make_mut(calls).0.push(*call),
                None => self.turn_calls.insert(thread_id, Arc::new(TurnCalls(vec![*call]))),
            },
            Change::TurnReset { thread_id } => self.turn_calls.remove(&thread_id),
            Change::Ask(a) => {
                self.asks.insert(a.question_id.clone(), a);
            }
            Change::Sweep { due } => self.sweep_due = due,
        }
        Ok(())
    }

    /// Checks that every delta in `changes` names a record that exists by then: in the state,
    /// or created by an earlier change of the same record.
    pub(crate) fn check_targets(&self, changes: &[Change]) -> Result<(), String> {
        let mut created: Vec<(Keyed, &str)> = Vec::new();
        for (kind, id, delta) in changes.iter().filter_map(Change::keyed) {
            if !delta {
                created.push((kind, id));
                continue;
            }
            let exists = match kind {
                Keyed::Handoff => self.handoffs.contains_key(id),
                Keyed::Thread => self.threads.contains_key(id),
                Keyed::Activity => self.activity.contains_key(id),
                Keyed::Message => self.messages.contains_key(id),
            };
            if !exists && !created.contains(&(kind, id)) {
                return Err(missing(kind.name(), id));
            }
        }
        Ok(())
    }

    /// Debug check after a commit: the state holds exactly the last whole version the command
    /// staged of every handoff, thread, activity record and message — so the deltas it stored
    /// (and that replay applies) rebuild what the handlers meant.
    #[cfg(debug_assertions)]
    pub(crate) fn assert_holds(&self, staged: &[Change]) {
        for (i, c) in staged.iter().enumerate() {
            let later = |same: &dyn Fn(&Change) -> bool| staged[i + 1..].iter().any(same);
            match c {
                Change::Handoff(h) if !later(&|x| matches!(x, Change::Handoff(o) if o.handoff_id == h.handoff_id)) => {
                    assert_eq!(self.handoffs.get(&h.handoff_id).map(|x| &**x), Some(&**h), "handoff after its delta");
                }
                Change::Thread(t) if !later(&|x| matches!(x, Change::Thread(o) if o.thread_id == t.thread_id)) => {
                    assert_eq!(self.threads.get(&t.thread_id).map(|x| &**x), Some(&**t), "thread after its delta");
                }
                Change::Activity { thread_id, activity }
                    if !later(&|x| matches!(x, Change::Activity { thread_id: o, .. } if o == thread_id)) =>
                {
                    assert_eq!(
                        self.activity.get(thread_id).map(|x| &**x),
                        Some(&**activity),
                        "activity after its delta"
                    );
                }
                Change::Message(m) if !later(&|x| matches!(x, Change::Message(o) if o.message_id == m.message_id)) => {
                    assert_eq!(self.messages.get(&m.message_id).map(|x| &**x), Some(&**m), "message after its delta");
                }
                _ => {}
            }
        }
    }

    /// How many recent records of each sealable kind stay values (see `Records`).
    pub(crate) fn keep_hot(&mut self, keep: usize) {
        self.threads.keep_hot(keep);
        self.activity.keep_hot(keep);
        self.handoffs.keep_hot(keep);
        self.messages.keep_hot(keep);
        self.turn_calls.keep_hot(keep);
    }

    /// How many records the state holds (the size a snapshot grows with).
    pub fn record_count(&self) -> u64 {
        (self.threads.len()
            + self.activity.len()
            + self.handoffs.len()
            + self.messages.len()
            + self.relay_threads.len()
            + self.relay_messages.len()
            + self.sessions.len()
            + self.legs.len()
            + self.schedules.len()
            + self.asks.len()
            + self.audit.len()) as u64
    }

    /// Resolves `target_bot` by bot id, then by display name (rule G2).
    pub fn resolve_bot(&self, name: &str) -> Option<&Agent> {
        self.agents.get(name).or_else(|| self.agents.values().find(|a| a.display_name == name))
    }

    /// The handoff whose child is `thread_id`: the one the thread names, which names the
    /// thread back (a child thread is made by its handoff, in the same record). No index of
    /// its own: a map from every child thread ever to its handoff was about 80 bytes a
    /// retained handoff.
    pub fn handoff_of_child(&self, thread_id: &str) -> Option<&Handoff> {
        let id = self.threads.get(thread_id)?.handoff_id.as_ref()?;
        self.handoffs.get(id).map(|h| &**h).filter(|h| h.child_thread_id.as_deref() == Some(thread_id))
    }

    /// Refreshes the due entry of each handoff a change of the record just applied moved,
    /// once each. Applying a record or a snapshot ends with it.
    pub(crate) fn settle_due(&mut self) {
        if self.idx.due_moved.is_empty() {
            return;
        }
        let mut moved = std::mem::take(&mut self.idx.due_moved);
        moved.sort_unstable();
        moved.dedup();
        for id in &moved {
            self.refresh_due(id);
        }
        moved.clear();
        self.idx.due_moved = moved;
    }

    /// When each open handoff is next due, oldest handoff first: the due index's entries,
    /// found by looking at every open handoff.
    fn due_entries(&self) -> Vec<(Timestamp, u64)> {
        self.open_handoffs().filter_map(|h| self.due_of(h).earliest().map(|t| (t, h.seq))).collect()
    }

    /// Builds `open_children` whole from the open handoffs (it is not kept while the due index
    /// is deferred).
    fn build_open_children(&mut self) {
        let mut children: Sharded<ThreadId, OpenHandoffs> = Sharded::default();
        for h in self.open_handoffs() {
            if let Some(c) = &h.child_thread_id {
                open_child(&mut children, c.clone(), &h.handoff_id);
            }
        }
        self.idx.open_children = children;
    }

    /// Stops keeping the due index until [`State::build_due`] (see `Indexes::due_deferred`).
    pub(crate) fn defer_due(&mut self) {
        self.idx.due = BTreeSet::new();
        self.idx.due_at = HashMap::default();
        self.idx.due_moved = Vec::new();
        self.idx.open_children = Sharded::default();
        self.idx.due_deferred = true;
    }

    /// Builds the due index whole from the open handoffs, for a state whose records all
    /// arrived at once (a snapshot restored, a deferred index): one pass over what is open, in
    /// order, instead of each moved handoff refreshed in turn ([`State::settle_due`]: ids
    /// sorted, looked up again).
    pub(crate) fn build_due(&mut self) {
        self.idx.due_moved = Vec::new();
        if std::mem::replace(&mut self.idx.due_deferred, false) {
            self.build_open_children();
        }
        let due = self.due_entries();
        self.idx.due.clear();
        self.idx.due_at.clear();
        self.idx.due_at.reserve(due.len());
        for (t, seq) in due {
            self.idx.due.insert((t, seq));
            self.idx.due_at.insert(seq, t);
        }
    }

    /// A handoff changed: its child's entry in `open_children` follows at once (a change of
    /// the child later in the same record finds it), its due entry when the record is applied.
    fn due_moved_by_handoff(&mut self, id: &HandoffId) {
        if self.idx.due_deferred {
            return; // `open_children` too is built with the index
        }
        if let Some(h) = self.handoffs.get(id) {
            if let Some(c) = h.child_thread_id.clone() {
                if !h.status.is_terminal() {
                    open_child(&mut self.idx.open_children, c, id);
                } else if self.idx.open_children.get_mut(&c).is_some_and(|open| open.remove(id)) {
                    self.idx.open_children.remove(&c);
                }
            }
        }
        self.idx.due_moved.push(id.clone());
    }

    /// A thread or its activity changed: the open handoffs it is the child of move.
    fn due_moved_by_child(&mut self, thread_id: &ThreadId) {
        if self.idx.due_deferred {
            return;
        }
        if let Some(ids) = self.idx.open_children.get(thread_id) {
            ids.copy_to(&mut self.idx.due_moved);
        }
    }

    /// When each time rule next applies to `h`, from its stored child thread and activity.
    pub(crate) fn due_of(&self, h: &Handoff) -> crate::handoff::live::Due {
        let child = h.child_thread_id.as_ref();
        let quiet = Activity::default();
        let act = child.and_then(|c| self.activity.get(c)).map_or(&quiet, |a| &**a);
        crate::handoff::live::due_with(h, child.and_then(|c| self.threads.get(c)).map(|t| &**t), act)
    }

    /// Moves handoff `id`'s entry in the due index to when a time rule next applies to it
    /// (out, once it is terminal or none applies).
    fn refresh_due(&mut self, id: &HandoffId) {
        let Some(h) = self.handoffs.get(id) else { return };
        let next = if h.status.is_terminal() { None } else { self.due_of(h).earliest() };
        let seq = h.seq;
        let old = self.idx.due_at.get(&seq).copied();
        if old == next {
            return;
        }
        if let Some(o) = old {
            self.idx.due.remove(&(o, seq));
        }
        match next {
            Some(t) => {
                self.idx.due.insert((t, seq));
                self.idx.due_at.insert(seq, t);
            }
            None => {
                self.idx.due_at.remove(&seq);
            }
        }
    }

    /// Open handoffs, oldest first, without touching closed ones.
    pub fn open_handoffs(&self) -> impl Iterator<Item = &Handoff> + '_ {
        self.idx.open.values().filter_map(|id| self.handoffs.get(id).map(|h| &**h))
    }

    /// Waiting mail for a thread, oldest first.
    pub fn queued_mail(&self, thread_id: &str) -> impl Iterator<Item = &Message> + '_ {
        self.idx
            .queued_mail
            .get(thread_id)
            .into_iter()
            .flat_map(|q| q.values())
            .filter_map(|id| self.messages.get(id).map(|m| &**m))
    }

    /// The teammate a bot acts as (the first by handle when several name it).
    pub(crate) fn teammate_of_bot(&self, bot_id: &str) -> Option<&str> {
        self.idx.teammates_of_bot.get(bot_id).and_then(|h| h.first()).map(String::as_str)
    }

    /// Send times of a pair (M8).
    pub fn pair_sends(&self, from_bot: &str, to_thread: &str) -> &[Timestamp] {
        self.idx.pair_sends.get(&(BotId::from(from_bot), ThreadId::from(to_thread))).map(Vec::as_slice).unwrap_or(&[])
    }

    /// Handoffs started from a thread, oldest first.
    pub fn handoffs_from(&self, thread_id: &str) -> impl Iterator<Item = &Handoff> + '_ {
        self.idx.by_parent.get(thread_id).into_iter().flatten().filter_map(|id| self.handoffs.get(id).map(|h| &**h))
    }

    /// Messages of a relay thread in order.
    pub(crate) fn relay_messages_of(&self, thread_id: &str) -> impl Iterator<Item = &RelayMessage> + '_ {
        let lo = (RelayThreadId::from(thread_id), 0);
        let hi = (RelayThreadId::from(thread_id), u64::MAX);
        self.idx.relay_msgs.range(lo..=hi).filter_map(|(_, id)| self.relay_messages.get(id).map(|m| &**m))
    }

    /// Threads mid-turn now.
    pub fn busy_threads(&self) -> impl Iterator<Item = &ThreadId> + '_ {
        self.idx.busy.iter()
    }

    /// Turns running now.
    pub fn busy_count(&self) -> usize {
        self.idx.busy.len()
    }

    /// Live threads of a bot.
    pub fn threads_of(&self, bot_id: &str) -> u32 {
        self.idx.threads_per_bot.get(bot_id).copied().unwrap_or(0)
    }
}

/// A delta names a record the state does not hold: the log is damaged.
fn missing(what: &str, id: &str) -> String {
    format!("a delta for {what} '{id}', which no earlier record created")
}

fn index_thread(idx: &mut Indexes, was_live: Option<bool>, t: &Thread) {
    let is_live = t.deleted_at.is_none();
    let count = idx.threads_per_bot.entry(t.bot_id.as_str().to_owned()).or_default();
    match (was_live, is_live) {
        (None | Some(false), true) => *count += 1,
        (Some(true), false) => *count = count.saturating_sub(1),
        _ => {}
    }
    if let Some(leg) = &t.leg_id {
        idx.thread_of_leg.insert(leg.clone(), t.thread_id.clone());
    }
}

fn index_activity(idx: &mut Indexes, thread_id: &ThreadId, activity: &Activity) {
    if activity.mid_turn {
        idx.busy.insert(thread_id.clone());
    } else {
        idx.busy.remove(thread_id);
    }
}

fn index_handoff(idx: &mut Indexes, is_new: bool, h: &Handoff) {
    if h.status.is_terminal() {
        idx.open.remove(&h.seq);
    } else {
        idx.open.insert(h.seq, h.handoff_id.clone());
    }
    if is_new {
        idx.by_parent.entry(h.parent_thread_id.clone()).or_insert_with(lists::for_one).push(h.handoff_id.clone());
    }
}

fn index_message(idx: &mut Indexes, is_new: bool, m: &Message) {
    if is_new && !m.system {
        let sent = idx.pair_sends.entry((m.from_bot_id.clone(), m.to_thread_id.clone())).or_insert_with(lists::for_one);
        sent.push(m.sent_at);
        if sent.len() > RATE_LIMIT {
            sent.drain(..sent.len() - RATE_LIMIT);
        }
    }
    let queue = idx.queued_mail.entry(m.to_thread_id.clone()).or_default();
    if m.state == MailState::Queued {
        queue.insert(m.seq, m.message_id.clone());
    } else {
        queue.remove(&m.seq);
        if queue.is_empty() {
            idx.queued_mail.remove(&m.to_thread_id);
        }
    }
}

impl HandoffState for State {
    fn config(&self) -> &Config {
        &self.config
    }

    fn agents(&self) -> &BTreeMap<String, Agent> {
        &self.agents
    }

    fn blueprints(&self) -> &BTreeMap<String, BlueprintManifest> {
        &self.blueprints
    }

    fn threads(&self) -> &Records<ThreadId, Thread> {
        &self.threads
    }

    fn activities(&self) -> &Records<ThreadId, Activity> {
        &self.activity
    }

    fn handoffs(&self) -> &Records<HandoffId, Handoff> {
        &self.handoffs
    }

    fn messages(&self) -> &Records<MessageId, Message> {
        &self.messages
    }

    fn turn_calls(&self) -> &Records<ThreadId, TurnCalls> {
        &self.turn_calls
    }

    fn next_sweep(&self) -> Option<Timestamp> {
        self.sweep_due
    }

    fn resolve_bot(&self, name: &str) -> Option<&Agent> {
        State::resolve_bot(self, name)
    }

    fn handoffs_due(&self, now: Timestamp) -> Vec<&Handoff> {
        let mut due: Vec<u64> = match self.idx.due_deferred {
            true => self.due_entries().into_iter().filter(|(t, _)| *t <= now).map(|(_, seq)| seq).collect(),
            false => self.idx.due.iter().take_while(|(t, _)| *t <= now).map(|(_, seq)| *seq).collect(),
        };
        due.sort_unstable();
        due.iter()
            .filter_map(|seq| self.idx.open.get(seq))
            .filter_map(|id| self.handoffs.get(id).map(|h| &**h))
            .collect()
    }

    fn next_handoff_due(&self) -> Option<Timestamp> {
        match self.idx.due_deferred {
            true => self.due_entries().into_iter().map(|(t, _)| t).min(),
            false => self.idx.due.first().map(|(t, _)| *t),
        }
    }

    fn due_of(&self, h: &Handoff) -> crate::handoff::live::Due {
        State::due_of(self, h)
    }

    fn open_handoffs(&self) -> impl Iterator<Item = &Handoff> {
        State::open_handoffs(self)
    }

    fn queued_mail(&self, thread_id: &str) -> impl Iterator<Item = &Message> {
        State::queued_mail(self, thread_id)
    }

    fn next_thread_with_mail(&self, after: Option<&ThreadId>) -> Option<&ThreadId> {
        use std::ops::Bound::{Excluded, Unbounded};
        match after {
            None => self.idx.queued_mail.keys().next(),
            Some(a) => self.idx.queued_mail.range::<ThreadId, _>((Excluded(a), Unbounded)).next().map(|(k, _)| k),
        }
    }

    fn pair_sends(&self, from_bot: &str, to_thread: &str) -> &[Timestamp] {
        State::pair_sends(self, from_bot, to_thread)
    }

    fn handoffs_from(&self, thread_id: &str) -> impl Iterator<Item = &Handoff> {
        State::handoffs_from(self, thread_id)
    }

    fn busy_count(&self) -> usize {
        State::busy_count(self)
    }

    fn threads_of(&self, bot_id: &str) -> u32 {
        State::threads_of(self, bot_id)
    }
}

impl CoordState for State {
    fn schedules(&self) -> &BTreeMap<ScheduleId, Arc<Schedule>> {
        &self.schedules
    }

    fn skills(&self) -> &BTreeMap<String, Skill> {
        &self.skills
    }

    fn todos(&self) -> &BTreeMap<String, TodoPlan> {
        &self.todos
    }

    fn reports(&self) -> &BTreeMap<String, Vec<String>> {
        &self.reports
    }

    fn asks(&self) -> &BTreeMap<QuestionId, Arc<Ask>> {
        &self.asks
    }

    fn leg_sessions(&self) -> &BTreeMap<String, LegSession> {
        &self.leg_sessions
    }

    fn leg_groups(&self) -> &BTreeMap<GroupId, LegGroup> {
        &self.leg_groups
    }

    fn leg_reports(&self) -> &BTreeMap<String, String> {
        &self.leg_reports
    }

    fn live_legs(&self) -> impl Iterator<Item = &Leg> {
        self.idx.live_legs.values().filter_map(|id| self.legs.get(id).map(|l| &**l))
    }

    fn thread_of_leg(&self, leg_id: &str) -> Option<&ThreadId> {
        self.idx.thread_of_leg.get(leg_id)
    }

    fn active_schedules(&self) -> impl Iterator<Item = &Schedule> {
        self.idx.active_schedules.iter().filter_map(|id| self.schedules.get(id).map(|x| &**x))
    }
}

impl SiblingState for State {
    fn sessions(&self) -> &HashMap<SessionId, Arc<SiblingSession>> {
        &self.sessions
    }

    fn active_sessions(&self) -> impl Iterator<Item = &SiblingSession> {
        self.idx.active_sessions.iter().filter_map(|id| self.sessions.get(id).map(|x| &**x))
    }
}

impl RelayState for State {
    fn teammates(&self) -> &BTreeMap<String, Teammate> {
        &self.teammates
    }

    fn trust(&self) -> &BTreeMap<String, TrustPolicy> {
        &self.trust
    }

    fn relay_threads(&self) -> &Sharded<RelayThreadId, Arc<RelayThread>> {
        &self.relay_threads
    }

    fn relay_seen(&self) -> &Sharded<RelayThreadId, u64> {
        &self.relay_seen
    }

    fn audit(&self) -> &[AuditEntry] {
        &self.audit
    }

    fn idempotent(&self, thread_id: &str, from: &str, key: &str) -> Option<&RelayMessage> {
        let id = self.idx.idempotency.get(&(RelayThreadId::from(thread_id), from.to_string(), key.to_string()))?;
        self.relay_messages.get(id).map(|m| &**m)
    }

    fn inbox_desc(
        &self,
        recipient: &str,
        status: RelayStatus,
        before: u64,
    ) -> impl Iterator<Item = (u64, &InboxEntry)> {
        let lo = (recipient.to_string(), status, 0);
        let hi = (recipient.to_string(), status, before);
        self.idx.inbox.range(lo..hi).rev().map(|((_, _, seq), e)| (*seq, e))
    }

    fn inbox_moved_after(&self, recipient: &str, snapshot: u64) -> impl Iterator<Item = (u64, &InboxEntry)> {
        let lo = (recipient.to_string(), snapshot.saturating_add(1), 0);
        let hi = (recipient.to_string(), u64::MAX, u64::MAX);
        self.idx.inbox_moved.range(lo..=hi).map(|((_, _, former), e)| (*former, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn a_child_of_two_open_handoffs_stays_indexed_until_both_end() {
        let (a, b) = (HandoffId::from("handoff_a"), HandoffId::from("handoff_b"));
        let mut open = OpenHandoffs::One(a.clone());
        open.insert(&a);
        assert_eq!(open, OpenHandoffs::One(a.clone()), "the same handoff again: still one");
        open.insert(&b);
        let copied = |open: &OpenHandoffs| {
            let mut ids = Vec::new();
            open.copy_to(&mut ids);
            ids
        };
        assert_eq!(copied(&open), [a.clone(), b.clone()]);
        assert!(!open.remove(&a), "b is still open");
        assert_eq!(copied(&open), std::slice::from_ref(&b));
        assert!(open.remove(&b), "none left");
        assert!(OpenHandoffs::One(a.clone()).remove(&a));
    }
}
