//! The append-only log: what each accepted command changed, behind a narrow storage trait.
use crate::coord::ask::Ask;
use crate::coord::leg::{Leg, LegGroup, LegSession};
use crate::coord::schedule::{Schedule, Skill};
use crate::coord::todo::TodoPlan;
use crate::ground::config::Config;
use crate::ground::error::StorageError;
use crate::ground::time::Timestamp;
use crate::handoff::agent::Agent;
use crate::handoff::blueprint::BlueprintManifest;
use crate::handoff::calls::CallSnapshot;
use crate::handoff::mailbox::{Message, MessageDelta};
use crate::handoff::thread::{Activity, ActivityDelta, Thread, ThreadDelta};
use crate::handoff::{Handoff, HandoffDelta};
use crate::relay::trust::TrustPolicy;
use crate::relay::{RelayMessage, RelayThread, Teammate};
use crate::sibling::{AuditEntry, SiblingSession};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// The stored format's version. A compatibility boundary: bump it when a record's shape
/// changes, and teach `Engine::open` to read the old one.
///
/// - 1: every change is the whole new version of a record (a post-image).
/// - 2: a record is logged whole when created; later changes to handoffs, threads, activity
///   and mail log only the fields that moved (`*_delta` changes). Every v1 change is still a
///   valid v2 change, so a v1 log replays as it is.
/// - 3: a whole record leaves out the fields at their defaults (`ground::stored`: a thread,
///   its activity, a handoff, its parameters and a mail message); a reader puts them back.
///   Every v2 line is a valid v3 line; a build that reads only up to 2 refuses a v3 log by
///   its version instead of reading its records wrong.
pub const LOG_FORMAT_VERSION: u32 = 3;

/// The oldest format version this build reads.
pub const LOG_FORMAT_OLDEST: u32 = 1;

/// One thing a command changed: the new version of a record (an upsert). Replaying the
/// changes in order rebuilds the state exactly, because `apply` is the only writer.
///
/// Stored internally tagged (`{"kind": "handoff", ...fields}`), `kind` first. Reading is by
/// hand (`change_de` below): with `kind` first the fields go straight into the record type, where
/// serde's derive would buffer every value first (the console's load time is mostly this).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Change {
    /// New configuration.
    Configured(Box<Config>),
    /// Agent registered or changed.
    Agent(Box<Agent>),
    /// Blueprint manifest registered or changed.
    Blueprint(BlueprintManifest),
    /// Thread created or changed.
    Thread(Arc<Thread>),
    /// A thread's fields that moved (v2).
    ThreadDelta {
        /// Thread.
        thread_id: crate::ground::ids::ThreadId,
        /// The moved fields.
        set: Box<ThreadDelta>,
    },
    /// A thread's activity record changed.
    Activity {
        /// Thread.
        thread_id: crate::ground::ids::ThreadId,
        /// Its new activity record.
        activity: Arc<Activity>,
    },
    /// A thread's activity fields that moved (v2).
    ActivityDelta {
        /// Thread.
        thread_id: crate::ground::ids::ThreadId,
        /// The moved fields.
        set: Box<ActivityDelta>,
    },
    /// Handoff created or changed.
    Handoff(Arc<Handoff>),
    /// A handoff's fields that moved (v2).
    HandoffDelta {
        /// Handoff.
        handoff_id: crate::ground::ids::HandoffId,
        /// The moved fields.
        set: Box<HandoffDelta>,
    },
    /// Message created or changed.
    Message(Arc<Message>),
    /// A message's fields that moved (v2).
    MessageDelta {
        /// Message.
        message_id: crate::ground::ids::MessageId,
        /// The moved fields.
        set: Box<MessageDelta>,
    },
    /// Teammate registered or changed.
    Teammate(Box<Teammate>),
    /// A recipient's trust policy.
    Trust {
        /// Recipient handle.
        handle: String,
        /// The policy.
        policy: Box<TrustPolicy>,
    },
    /// Relay thread created or changed.
    RelayThread(Arc<RelayThread>),
    /// Relay message created.
    RelayMessage(Arc<RelayMessage>),
    /// The recipient has seen the sender's messages up to this count (I2).
    RelaySeen {
        /// Thread.
        thread_id: crate::ground::ids::RelayThreadId,
        /// `sender_messages` at the time.
        seen: u64,
    },
    /// Sibling session created or changed.
    Session(Arc<SiblingSession>),
    /// An audit log entry (X5).
    Audit(Box<AuditEntry>),
    /// Schedule created or changed.
    Schedule(Arc<Schedule>),
    /// Scheduler skill created or trashed.
    Skill(Skill),
    /// A task's checklist.
    Todo(TodoPlan),
    /// A report file written in a task (A7).
    Report {
        /// Task.
        task_id: String,
        /// Path.
        path: String,
    },
    /// Question to the user asked or answered.
    Ask(Arc<Ask>),
    /// Leg created or changed.
    Leg(Arc<Leg>),
    /// Named leg session registered.
    LegSession(Box<LegSession>),
    /// Background group created or changed.
    LegGroup(Box<LegGroup>),
    /// A leg's stored report.
    LegReport {
        /// `temp-<name>.md`.
        path: String,
        /// The report text, whole.
        text: String,
    },
    /// A tool call of the thread's current turn, kept for an `ask_user` snapshot (A8).
    TurnCall {
        /// Thread.
        thread_id: crate::ground::ids::ThreadId,
        /// The call, clamped.
        call: Box<CallSnapshot>,
    },
    /// A new turn started: the previous turn's calls are dropped.
    TurnReset {
        /// Thread.
        thread_id: crate::ground::ids::ThreadId,
    },
    /// The delivery sweep's next run.
    Sweep {
        /// When, or `None` when no mail waits.
        due: Option<Timestamp>,
    },
}

/// The kinds of record that are logged whole once and as deltas after (format v2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Keyed {
    Handoff,
    Thread,
    Activity,
    Message,
}

impl Keyed {
    /// The record's name in messages.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Keyed::Handoff => "handoff",
            Keyed::Thread => "thread",
            Keyed::Activity => "activity of thread",
            Keyed::Message => "message",
        }
    }
}

impl Change {
    /// For a change to a record that v2 logs as deltas: its kind, its id, and whether this
    /// change is a delta (else the whole record).
    pub(crate) fn keyed(&self) -> Option<(Keyed, &str, bool)> {
        Some(match self {
            Change::Handoff(h) => (Keyed::Handoff, h.handoff_id.as_str(), false),
            Change::Thread(t) => (Keyed::Thread, t.thread_id.as_str(), false),
            Change::Activity { thread_id, .. } => (Keyed::Activity, thread_id.as_str(), false),
            Change::Message(m) => (Keyed::Message, m.message_id.as_str(), false),
            Change::HandoffDelta { handoff_id, .. } => (Keyed::Handoff, handoff_id.as_str(), true),
            Change::ThreadDelta { thread_id, .. } => (Keyed::Thread, thread_id.as_str(), true),
            Change::ActivityDelta { thread_id, .. } => (Keyed::Activity, thread_id.as_str(), true),
            Change::MessageDelta { message_id, .. } => (Keyed::Message, message_id.as_str(), true),
            _ => return None,
        })
    }
}

mod change_de {
    //! Reading a [`Change`]: `kind` first (as written) streams the rest of the object into the
    //! variant's type; any other order is collected into a JSON map first, then read the same way.
    use super::*;
    use serde::de::value::MapAccessDeserializer;
    use serde::de::{self, MapAccess, Visitor};
    use serde::Deserializer;
    use std::fmt;

    #[derive(Deserialize)]
    struct ActivityV {
        thread_id: crate::ground::ids::ThreadId,
        activity: Activity,
    }
    #[derive(Deserialize)]
    struct HandoffDeltaV {
        handoff_id: crate::ground::ids::HandoffId,
        set: Box<HandoffDelta>,
    }
    #[derive(Deserialize)]
    struct ThreadDeltaV {
        thread_id: crate::ground::ids::ThreadId,
        set: Box<ThreadDelta>,
    }
    #[derive(Deserialize)]
    struct ActivityDeltaV {
        thread_id: crate::ground::ids::ThreadId,
        set: Box<ActivityDelta>,
    }
    #[derive(Deserialize)]
    struct MessageDeltaV {
        message_id: crate::ground::ids::MessageId,
        set: Box<MessageDelta>,
    }
    #[derive(Deserialize)]
    struct TrustV {
        handle: String,
        policy: TrustPolicy,
    }
    #[derive(Deserialize)]
    struct RelaySeenV {
        thread_id: crate::ground::ids::RelayThreadId,
        seen: u64,
    }
    #[derive(Deserialize)]
    struct ReportV {
        task_id: String,
        path: String,
    }
    #[derive(Deserialize)]
    struct LegReportV {
        path: String,
        text: String,
    }
    #[derive(Deserialize)]
    struct TurnCallV {
        thread_id: crate::ground::ids::ThreadId,
        call: CallSnapshot,
    }
    #[derive(Deserialize)]
    struct TurnResetV {
        thread_id: crate::ground::ids::ThreadId,
    }
    #[derive(Deserialize)]
    struct SweepV {
        due: Option<Timestamp>,
    }

    const KINDS: &[&str] = &[
        "configured",
        "agent",
        "blueprint",
        "thread",
        "activity",
        "handoff",
        "message",
        "teammate",
        "trust",
        "relay_thread",
        "relay_message",
        "relay_seen",
        "session",
        "audit",
        "schedule",
        "skill",
        "todo",
        "report",
        "ask",
        "leg",
        "leg_session",
        "leg_group",
        "leg_report",
        "turn_call",
        "turn_reset",
        "sweep",
        "handoff_delta",
        "thread_delta",
        "activity_delta",
        "message_delta",
    ];

    /// The variant `kind` names, read from the object's other fields.
    fn variant<'de, D: Deserializer<'de>>(kind: &str, d: D) -> Result<Change, D::Error> {
        Ok(match kind {
            "configured" => Change::Configured(Deserialize::deserialize(d)?),
            "agent" => Change::Agent(Deserialize::deserialize(d)?),
            "blueprint" => Change::Blueprint(Deserialize::deserialize(d)?),
            // `Arc::new` of the value read: serde reads an `Arc<T>` into a `Box<T>` first, then
            // moves it into a second allocation.
            "thread" => Change::Thread(Arc::new(Deserialize::deserialize(d)?)),
            "activity" => {
                let v = ActivityV::deserialize(d)?;
                Change::Activity { thread_id: v.thread_id, activity: Arc::new(v.activity) }
            }
            "handoff" => Change::Handoff(Arc::new(Deserialize::deserialize(d)?)),
            "message" => Change::Message(Arc::new(Deserialize::deserialize(d)?)),
            "teammate" => Change::Teammate(Deserialize::deserialize(d)?),
            "trust" => {
                let v = TrustV::deserialize(d)?;
                Change::Trust { handle: v.handle, policy: Box::new(v.policy) }
            }
            "relay_thread" => Change::RelayThread(Deserialize::deserialize(d)?),
            "relay_message" => Change::RelayMessage(Deserialize::deserialize(d)?),
            "relay_seen" => {
                let v = RelaySeenV::deserialize(d)?;
                Change::RelaySeen { thread_id: v.thread_id, seen: v.seen }
            }
            "session" => Change::Session(Deserialize::deserialize(d)?),
            "audit" => Change::Audit(Deserialize::deserialize(d)?),
            "schedule" => Change::Schedule(Deserialize::deserialize(d)?),
            "skill" => Change::Skill(Deserialize::deserialize(d)?),
            "todo" => Change::Todo(Deserialize::deserialize(d)?),
            "report" => {
                let v = ReportV::deserialize(d)?;
                Change::Report { task_id: v.task_id, path: v.path }
            }
            "ask" => Change::Ask(Deserialize::deserialize(d)?),
            "leg" => Change::Leg(Deserialize::deserialize(d)?),
            "leg_session" => Change::LegSession(Deserialize::deserialize(d)?),
            "leg_group" => Change::LegGroup(Deserialize::deserialize(d)?),
            "leg_report" => {
                let v = LegReportV::deserialize(d)?;
                Change::LegReport { path: v.path, text: v.text }
            }
            "turn_call" => {
                let v = TurnCallV::deserialize(d)?;
                Change::TurnCall { thread_id: v.thread_id, call: Box::new(v.call) }
            }
            "turn_reset" => Change::TurnReset { thread_id: TurnResetV::deserialize(d)?.thread_id },
            "sweep" => Change::Sweep { due: SweepV::deserialize(d)?.due },
            "handoff_delta" => {
                let v = HandoffDeltaV::deserialize(d)?;
                Change::HandoffDelta { handoff_id: v.handoff_id, set: v.set }
            }
            "thread_delta" => {
                let v = ThreadDeltaV::deserialize(d)?;
                Change::ThreadDelta { thread_id: v.thread_id, set: v.set }
            }
            "activity_delta" => {
                let v = ActivityDeltaV::deserialize(d)?;
                Change::ActivityDelta { thread_id: v.thread_id, set: v.set }
            }
            "message_delta" => {
                let v = MessageDeltaV::deserialize(d)?;
                Change::MessageDelta { message_id: v.message_id, set: v.set }
            }
            other => return Err(de::Error::unknown_variant(other, KINDS)),
        })
    }

    /// A key or a `kind` as read: borrowed from the line when it has no escapes (serde's own
    /// `Cow<str>` always copies, an allocation a change for its key and another for its kind).
    enum Text<'de> {
        Borrowed(&'de str),
        Owned(String),
    }

    impl Text<'_> {
        fn as_str(&self) -> &str {
            match self {
                Text::Borrowed(s) => s,
                Text::Owned(s) => s,
            }
        }
    }

    impl<'de> Deserialize<'de> for Text<'de> {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Text<'de>, D::Error> {
            struct TextVisitor;
            impl<'de> Visitor<'de> for TextVisitor {
                type Value = Text<'de>;
                fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    f.write_str("a string")
                }
                fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Text<'de>, E> {
                    Ok(Text::Borrowed(v))
                }
                fn visit_str<E: de::Error>(self, v: &str) -> Result<Text<'de>, E> {
                    Ok(Text::Owned(v.to_string()))
                }
                fn visit_string<E: de::Error>(self, v: String) -> Result<Text<'de>, E> {
                    Ok(Text::Owned(v))
                }
            }
            d.deserialize_str(TextVisitor)
        }
    }

    struct ChangeVisitor;

    impl<'de> Visitor<'de> for ChangeVisitor {
        type Value = Change;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a change object with a `kind`")
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Change, A::Error> {
            let Some(first) = map.next_key::<Text<'de>>()? else {
                return Err(de::Error::missing_field("kind"));
            };
            if first.as_str() == "kind" {
                let kind: Text<'de> = map.next_value()?;
                return variant(kind.as_str(), MapAccessDeserializer::new(map));
            }
            // Another order: collect the object, then read it again written `kind` first (one
            // reading path, so the variant readers are compiled once).
            let mut fields = serde_json::Map::new();
            fields.insert(first.as_str().to_string(), map.next_value()?);
            while let Some((k, v)) = map.next_entry::<String, serde_json::Value>()? {
                fields.insert(k, v);
            }
            let kind = match fields.remove("kind") {
                Some(k @ serde_json::Value::String(_)) => k,
                Some(_) => return Err(de::Error::custom("`kind` must be a string")),
                None => return Err(de::Error::missing_field("kind")),
            };
            let rest = serde_json::Value::Object(fields).to_string();
            let text = match rest.len() {
                2 => format!("{{\"kind\":{kind}}}"),
                _ => format!("{{\"kind\":{kind},{}", &rest[1..]),
            };
            serde_json::from_str(&text).map_err(de::Error::custom)
        }
    }

    /// A record's changes, with no spare room: serde's reader grows the list by doubling (room
    /// for four when two are read), and the list is kept as long as its record.
    pub(super) fn exact<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Change>, D::Error> {
        let mut changes = Vec::<Change>::deserialize(d)?;
        changes.shrink_to_fit();
        Ok(changes)
    }

    impl<'de> Deserialize<'de> for Change {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Change, D::Error> {
            d.deserialize_map(ChangeVisitor)
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
        fn kind_first_or_last_reads_the_same_change() {
            let first = r#"{"kind":"relay_seen","thread_id":"relay_1","seen":3}"#;
            let last = r#"{"thread_id":"relay_1","seen":3,"kind":"relay_seen"}"#;
            let a: Change = serde_json::from_str(first).unwrap();
            let b: Change = serde_json::from_str(last).unwrap();
            assert_eq!(a, b);
            assert_eq!(a, Change::RelaySeen { thread_id: "relay_1".into(), seen: 3 });
            assert_eq!(serde_json::to_string(&a).unwrap(), first, "written kind first");
            let sweep: Change = serde_json::from_str(r#"{"due":null,"kind":"sweep"}"#).unwrap();
            assert_eq!(sweep, Change::Sweep { due: None });
            // As with serde's derive before, fields a variant does not know are skipped.
            let extra: Change =
                serde_json::from_str(r#"{"kind":"relay_seen","thread_id":"relay_1","seen":3,"x":1}"#).unwrap();
            assert_eq!(extra, a);
            // A key or a kind written with escapes is read as well (copied, not borrowed).
            let escaped: Change =
                serde_json::from_str(r#"{"\u006bind":"relay\u005fseen","thread_id":"relay_1","seen":3}"#).unwrap();
            assert_eq!(escaped, a);
        }

        #[test]
        #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
        fn a_bad_change_is_refused_with_a_reason() {
            for (json, want) in [
                (r#"{"kind":"nope"}"#, "unknown variant `nope`"),
                (r#"{"seen":3}"#, "missing field `kind`"),
                (r#"{"kind":"relay_seen","thread_id":"r"}"#, "missing field `seen`"),
            ] {
                let err = serde_json::from_str::<Change>(json).unwrap_err().to_string();
                assert!(err.contains(want), "{json}: {err}");
            }
        }
    }
}

/// One accepted command: one atomic append.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LogRecord {
    /// Format version ([`LOG_FORMAT_VERSION`]).
    pub v: u32,
    /// Position in the log, from 1.
    pub seq: u64,
    /// The command's `now`.
    pub at: Timestamp,
    /// Tool or host input name (`handoff`, `turn_ended`, `tick`).
    pub command: String,
    /// The id sequence after the command, so a reloaded engine never reissues an id.
    pub id_seq: u64,
    /// What changed, in order. Read to its length: a host that keeps the records it read (the
    /// console's history) keeps no room for more.
    #[serde(deserialize_with = "change_de::exact")]
    pub changes: Vec<Change>,
    /// The W3C trace context the command came with, if any (an MCP call's `_meta`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<TraceContext>,
}

/// A W3C Trace Context (`traceparent`, `tracestate`) a command came with: kept on the record it
/// makes, so a trace that crossed into Baton can be followed to what it changed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceContext {
    /// `version-traceid-parentid-flags`, lower-case hex.
    pub traceparent: String,
    /// Vendor entries, as sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tracestate: Option<String>,
}

/// The longest `tracestate` kept (W3C Trace Context: 32 entries of at most 256 characters is
/// what a receiver must accept; a longer one is dropped whole, never cut).
const TRACESTATE_MAX: usize = 8192;

impl TraceContext {
    /// A trace context from its two headers (or `_meta` fields), if `traceparent` is well
    /// formed (W3C Trace Context §3.2: 2-hex version other than `ff`, 32-hex trace id and
    /// 16-hex parent id not all zeros, 2-hex flags; version 00 exactly that long). An invalid
    /// one is ignored, as the recommendation asks of a receiver; so is a `tracestate` without
    /// a valid `traceparent`, or one that is not printable ASCII or is too long.
    pub fn parse(traceparent: &str, tracestate: Option<&str>) -> Option<TraceContext> {
        let parts: Vec<&str> = traceparent.trim().split('-').collect();
        let hex =
            |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        let zeros = |s: &str| s.bytes().all(|b| b == b'0');
        let ok = parts.len() >= 4
            && hex(parts[0], 2)
            && parts[0] != "ff"
            && (parts[0] != "00" || parts.len() == 4)
            && hex(parts[1], 32)
            && !zeros(parts[1])
            && hex(parts[2], 16)
            && !zeros(parts[2])
            && hex(parts[3], 2);
        if !ok {
            return None;
        }
        let tracestate = tracestate
            .map(str::trim)
            .filter(|t| !t.is_empty() && t.len() <= TRACESTATE_MAX && t.bytes().all(|b| (0x20..0x7f).contains(&b)))
            .map(str::to_string);
        Some(TraceContext { traceparent: traceparent.trim().to_string(), tracestate })
    }
}

impl LogRecord {
    /// The record as one JSON line (the portable stored form).
    pub fn to_json_line(&self) -> String {
        crate::ground::stored::form(|| serde_json::to_string(self)).expect("log records always serialize")
    }

    /// The record as one JSON line, written at the end of `out` (a host that reuses its
    /// buffer): the same text as [`LogRecord::to_json_line`].
    pub fn write_json_line(&self, out: &mut Vec<u8>) {
        crate::ground::stored::form(|| serde_json::to_writer(out, self)).expect("log records always serialize")
    }

    /// Reads one JSON line.
    pub fn from_json_line(line: &str, index: usize) -> Result<LogRecord, StorageError> {
        serde_json::from_str(line).map_err(|e| StorageError::Corrupt { index, reason: e.to_string() })
    }
}

#[cfg(test)]
mod trace_tests {
    use super::TraceContext;

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn a_well_formed_traceparent_is_kept_and_any_other_ignored() {
        let good = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        let t = TraceContext::parse(good, Some("rojo=00f067aa0ba902b7")).unwrap();
        assert_eq!((t.traceparent.as_str(), t.tracestate.as_deref()), (good, Some("rojo=00f067aa0ba902b7")));
        // a later version may carry more fields
        assert!(TraceContext::parse("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra", None).is_some());
        for bad in [
            "",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
        ] {
            assert_eq!(TraceContext::parse(bad, Some("a=b")), None, "{bad}");
        }
        // a tracestate that is not printable ASCII is dropped; the traceparent stays
        assert_eq!(TraceContext::parse(good, Some("a=\u{1}")).unwrap().tracestate, None);
    }
}
