//! The log as a timeline: what one record changed, in words.
use super::names::wire;
use crate::engine::log::{Change, LogRecord};
use crate::engine::state::State;
use crate::ground::time::Timestamp;

/// One entry of the timeline: what one record changed, in words.
#[derive(Clone, Debug, PartialEq)]
pub struct TimelineEntry {
    /// Record number.
    pub seq: u64,
    /// When.
    pub at: Timestamp,
    /// The command (tool, host input or `tick`).
    pub command: String,
    /// One line per change worth telling (activity counters and bookkeeping left out).
    pub lines: Vec<String>,
    /// Ids the record touched (handoffs, threads, relay threads), for links.
    pub ids: Vec<String>,
}

/// Describes one record. Who and to whom come from the records themselves (a handoff names
/// both agents; mail names both threads). A delta (log format v2) names only what moved; the
/// parties and the task never move, so they are read from `state` — any later state will do.
pub fn timeline_entry(record: &LogRecord, state: &State) -> TimelineEntry {
    let mut lines = Vec::new();
    let mut ids = Vec::new();
    for change in &record.changes {
        match change {
            Change::Handoff(h) => {
                ids.push(h.handoff_id.to_string());
                lines.push(format!(
                    "handoff {} · {} → {} · {} · {}",
                    h.handoff_id,
                    h.parent_bot_id,
                    h.child_bot_id,
                    h.status.as_str(),
                    h.spec.thread_title.as_deref().unwrap_or(&h.spec.task)
                ));
            }
            Change::HandoffDelta { handoff_id, set } => {
                ids.push(handoff_id.to_string());
                let moved = match &set.status {
                    Some(s) => s.as_str().to_string(),
                    None => format!("moved: {}", set.moved().join(", ")),
                };
                lines.push(match state.handoffs.get(handoff_id) {
                    Some(h) => format!(
                        "handoff {handoff_id} · {} → {} · {moved} · {}",
                        h.parent_bot_id,
                        h.child_bot_id,
                        h.spec.thread_title.as_deref().unwrap_or(&h.spec.task)
                    ),
                    None => format!("handoff {handoff_id} · {moved}"),
                });
            }
            Change::ThreadDelta { thread_id, set } => {
                ids.push(thread_id.to_string());
                let what = if matches!(set.deleted_at, Some(Some(_))) { "deleted" } else { "saved" };
                let bot = state.threads.get(thread_id).map(|t| t.bot_id.as_str()).unwrap_or("?");
                lines.push(format!("thread {thread_id} ({bot}) {what}"));
            }
            Change::MessageDelta { message_id, set } => {
                let m = state.messages.get(message_id);
                let moved = match &set.state {
                    Some(s) => wire(s),
                    None => format!("moved: {}", set.moved().join(", ")),
                };
                lines.push(format!(
                    "mail {message_id} · {} → {} · {moved} · {}",
                    m.map_or("?", |m| m.from_bot_id.as_str()),
                    m.map_or("?", |m| m.to_bot_id.as_str()),
                    m.and_then(|m| m.subject.as_deref()).unwrap_or("(no subject)")
                ));
            }
            Change::Thread(t) => {
                ids.push(t.thread_id.to_string());
                let what = if t.deleted_at.is_some() { "deleted" } else { "saved" };
                lines.push(format!("thread {} ({}) {what}", t.thread_id, t.bot_id));
            }
            Change::Message(m) => lines.push(format!(
                "mail {} · {} → {} · {} · {}",
                m.message_id,
                m.from_bot_id,
                m.to_bot_id,
                wire(&m.state),
                m.subject.as_deref().unwrap_or("(no subject)")
            )),
            Change::RelayThread(r) => {
                ids.push(r.thread_id.to_string());
                lines.push(format!(
                    "relay {} · {} → {} · {} · {}",
                    r.thread_id,
                    r.sender,
                    r.recipient,
                    r.status.as_str(),
                    r.summary
                ));
            }
            Change::RelayMessage(m) => {
                lines.push(format!("relay message #{} on {} from {}", m.sequence_no, m.thread_id, m.from))
            }
            Change::Session(s) => lines.push(format!(
                "sibling session {} · {} ⇄ {} · {}",
                s.session_id,
                s.originator_bot,
                s.sibling_bot,
                s.status.as_str()
            )),
            Change::Agent(a) => lines.push(format!("agent {} ({})", a.bot_id, a.display_name)),
            Change::Teammate(t) => lines.push(format!("teammate {} ({})", t.handle, t.name)),
            Change::Blueprint(b) => lines.push(format!("blueprint {}", b.name)),
            Change::Leg(l) => lines.push(format!("leg {} · {}", l.leg_id, l.status.as_str())),
            Change::Schedule(s) => lines.push(format!("schedule {} · {}", s.schedule_id, wire(&s.status))),
            Change::Ask(a) => lines.push(format!("question {} · {}", a.question_id, wire(&a.status))),
            Change::Audit(a) => lines.push(format!("audit · {} {} on {}", a.actor, a.action, a.session_id)),
            _ => {}
        }
    }
    ids.dedup();
    TimelineEntry { seq: record.seq, at: record.at, command: record.command.clone(), lines, ids }
}
