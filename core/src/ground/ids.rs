//! Injected id source: ids are a pure function of (seed, sequence number), so runs repeat.
use serde::{Deserialize, Serialize};

/// What an id names; decides its prefix.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum IdKind {
    /// `handoff_…`
    Handoff,
    /// `chat_…` (a thread)
    Thread,
    /// `msg_…` (a mailbox message)
    Message,
    /// `mission_…`
    Mission,
    /// `relay_…` (a relay thread between teammates)
    Relay,
    /// `session_…`
    Session,
    /// `sched_…`
    Schedule,
    /// `question_…`
    Question,
    /// `task_…`
    Task,
    /// `leg_…`
    Leg,
    /// `group_…`
    Group,
    /// `n_…`: a provenance wrapper's nonce (rule I4), drawn per wrap and never stored.
    Nonce,
}

impl IdKind {
    fn prefix(self) -> &'static str {
        match self {
            IdKind::Handoff => "handoff_",
            IdKind::Thread => "chat_",
            IdKind::Message => "msg_",
            IdKind::Mission => "mission_",
            IdKind::Relay => "relay_",
            IdKind::Session => "session_",
            IdKind::Schedule => "sched_",
            IdKind::Question => "question_",
            IdKind::Task => "task_",
            IdKind::Leg => "leg_",
            IdKind::Group => "group_",
            IdKind::Nonce => "n_",
        }
    }
}

/// Where the engine gets new ids. Contract: for a fixed source, `id(kind, n)` is the same
/// every time, and distinct `n` give distinct ids. The engine keeps `n` in its state (and so
/// in the log), which is why a reloaded engine never hands out an id twice.
pub trait IdSource: Send {
    /// The id for the `seq`-th draw.
    fn id(&self, kind: IdKind, seq: u64) -> String;
}

/// The default source: `prefix + 16 hex digits` of splitmix64(seed + seq), a bijection on
/// u64, so ids never collide for one seed.
///
/// Nonces ([`IdKind::Nonce`]) are SipHash-1-3 of `seq` under a 128-bit key instead, so a
/// reader cannot compute the next one from those it has seen. By default the key is derived
/// from the seed, which keeps runs repeatable; but splitmix64 is invertible, so anyone who
/// sees a few ids can recover the seed. A host that serves untrusted senders gives a secret
/// key with [`SeededIds::with_nonce_key`] (nonces are never stored, so it need not persist).
#[derive(Clone, Debug)]
pub struct SeededIds {
    seed: u64,
    nonce_key: (u64, u64),
}

impl SeededIds {
    /// A source for one seed. Hosts pick a random seed per workspace; tests pick a fixed one.
    pub fn new(seed: u64) -> Self {
        let k0 = splitmix64(seed ^ 0x6e6f_6e63_655f_6b30);
        SeededIds { seed, nonce_key: (k0, splitmix64(k0)) }
    }

    /// The same source with a secret key for nonces (from the host's randomness).
    pub fn with_nonce_key(mut self, key: u128) -> Self {
        self.nonce_key = ((key >> 64) as u64, key as u64);
        self
    }
}

fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl IdSource for SeededIds {
    fn id(&self, kind: IdKind, seq: u64) -> String {
        let bits = match kind {
            IdKind::Nonce => {
                use std::hash::Hasher;
                let mut h = siphasher::sip::SipHasher13::new_with_keys(self.nonce_key.0, self.nonce_key.1);
                h.write_u64(seq);
                h.finish()
            }
            _ => splitmix64(self.seed.wrapping_add(seq)),
        };
        format!("{}{bits:016x}", kind.prefix())
    }
}

/// An id's text. Natively a `CompactString`, which holds up to 24 bytes in place: every id
/// Baton makes (a prefix and 16 hex digits) but a question's. On 32-bit targets (wasm32: the
/// console and the npm package) a `CompactString` holds only 12 bytes in place, so every id
/// was on the heap and every copy of one (each index holds a few) allocated; there an id is
/// shared text instead, whose copy counts a reference.
#[cfg(target_pointer_width = "64")]
type IdText = compact_str::CompactString;
#[cfg(not(target_pointer_width = "64"))]
type IdText = std::sync::Arc<str>;

/// Reads an id's text with one allocation at most (serde's reader for `Arc<str>` makes a
/// `Box<str>` first, then copies it).
fn read_id_text<'de, D: serde::Deserializer<'de>>(d: D) -> Result<IdText, D::Error> {
    read_text(d, shared::id)
}

/// Reads an agent's id as [`read_id_text`] reads any other, but kept apart on 32-bit targets
/// ([`shared`]).
fn read_agent_text<'de, D: serde::Deserializer<'de>>(d: D) -> Result<IdText, D::Error> {
    read_text(d, shared::agent)
}

fn read_text<'de, D: serde::Deserializer<'de>>(d: D, make: fn(&str) -> IdText) -> Result<IdText, D::Error> {
    struct Text(fn(&str) -> IdText);
    impl serde::de::Visitor<'_> for Text {
        type Value = IdText;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("an id (a string)")
        }
        fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<IdText, E> {
            Ok((self.0)(s))
        }
    }
    d.deserialize_str(Text(make))
}

/// An id's text from what was read. Natively a copy: every id Baton makes, and an agent's id
/// of up to 24 bytes, is held in place.
#[cfg(target_pointer_width = "64")]
mod shared {
    use super::IdText;

    pub(super) fn id(s: &str) -> IdText {
        IdText::from(s)
    }

    pub(super) use id as agent;
}

/// An id's text from what was read, on 32-bit targets, where an id is shared text and a copy
/// is an allocation. The ids read last on this thread are kept, the most recently read last,
/// and an id read again while kept shares their text: a record names the same ids in several
/// places (a new child thread and its handoff name each other and the same parent), and a
/// workspace has few agents, each named by most of its records. Agents' ids are kept apart,
/// so the other ids do not push them out. Nothing reads these lists but this: an id read is
/// the same text either way.
#[cfg(not(target_pointer_width = "64"))]
mod shared {
    use super::IdText;
    use std::cell::RefCell;

    /// How many ids of each list are kept.
    const KEPT: usize = 8;

    std::thread_local! {
        static IDS: RefCell<Vec<IdText>> = const { RefCell::new(Vec::new()) };
        static AGENTS: RefCell<Vec<IdText>> = const { RefCell::new(Vec::new()) };
    }

    pub(super) fn id(s: &str) -> IdText {
        IDS.with(|kept| share(kept, s))
    }

    pub(super) fn agent(s: &str) -> IdText {
        AGENTS.with(|kept| share(kept, s))
    }

    fn share(kept: &RefCell<Vec<IdText>>, s: &str) -> IdText {
        let mut kept = kept.borrow_mut();
        let text = match kept.iter().rposition(|t| **t == *s) {
            Some(i) => kept.remove(i),
            None => {
                if kept.len() == KEPT {
                    kept.remove(0);
                }
                IdText::from(s)
            }
        };
        kept.push(text.clone());
        text
    }
}

/// Declares a typed id: a string on the wire, its own type in Rust, so one kind of id cannot
/// be passed where another is expected. Maps keyed by it are read with a `&str`. An id read
/// another way than [`read_id_text`] names its reader after the type.
macro_rules! id_type {
    ($($(#[$doc:meta])* $name:ident $(read by $reader:literal)?;)*) => {$(
        id_type!(@one [$(#[$doc])*] $name [$($reader)? "read_id_text"]);
    )*};
    (@one [$(#[$doc:meta])*] $name:ident [$reader:literal $($default:literal)?]) => {
        $(#[$doc])*
        #[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
        #[serde(transparent)]
        pub struct $name(
            #[serde(deserialize_with = $reader)]
            #[cfg_attr(feature = "schema", schemars(with = "String"))]
            IdText,
        );

        impl $name {
            /// The id as text.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl std::ops::Deref for $name {
            type Target = str;
            fn deref(&self) -> &str {
                &self.0
            }
        }

        impl std::borrow::Borrow<str> for $name {
            fn borrow(&self) -> &str {
                &self.0
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl From<String> for $name {
            fn from(s: String) -> Self {
                $name(IdText::from(s))
            }
        }

        impl From<&str> for $name {
            fn from(s: &str) -> Self {
                $name(IdText::from(s))
            }
        }

        impl From<$name> for String {
            fn from(id: $name) -> String {
                (*id.0).to_owned()
            }
        }

        impl PartialEq<str> for $name {
            fn eq(&self, other: &str) -> bool {
                *self.0 == *other
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                *self.0 == **other
            }
        }

        impl PartialEq<String> for $name {
            fn eq(&self, other: &String) -> bool {
                *self.0 == **other
            }
        }

        impl PartialEq<$name> for String {
            fn eq(&self, other: &$name) -> bool {
                **self == *other.0
            }
        }

        impl PartialEq<$name> for str {
            fn eq(&self, other: &$name) -> bool {
                *self == *other.0
            }
        }
    };
}

id_type! {
    /// A bot's conversation thread (`chat_…`, or the id the host gave it).
    ThreadId;
    /// A handoff (`handoff_…`).
    HandoffId;
    /// A scheduled run (`sched_…`).
    ScheduleId;
    /// A question to the user (`question_…`).
    QuestionId;
    /// A subagent leg, also its background task id (`leg_…`).
    LegId;
    /// Background legs started in one turn (`group_…`).
    GroupId;
    /// A relay thread between teammates (`relay_…`).
    RelayThreadId;
    /// A message: mailbox mail between threads, or a relay thread's message (`msg_…`).
    MessageId;
    /// A blueprint mission (`mission_…`).
    MissionId;
    /// A sibling handoff session (`session_…`).
    SessionId;
    /// An agent (a bot), as the host registered it or a handoff named it.
    BotId read by "read_agent_text";
    /// What a view's row stands for, when a view's rows name more than one kind (the chains
    /// view: a handoff, or a thread at a tree's root). Made from the record's own id, so on
    /// 32-bit targets a row shares its text with the state rather than copying it.
    RowId;
}

impl From<&HandoffId> for RowId {
    fn from(id: &HandoffId) -> RowId {
        RowId(id.0.clone())
    }
}

impl From<&ThreadId> for RowId {
    fn from(id: &ThreadId) -> RowId {
        RowId(id.0.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn seeded_ids_repeat_and_differ() {
        let a = SeededIds::new(7);
        assert_eq!(a.id(IdKind::Handoff, 1), a.id(IdKind::Handoff, 1));
        assert_ne!(a.id(IdKind::Handoff, 1), a.id(IdKind::Handoff, 2));
        assert!(a.id(IdKind::Thread, 1).starts_with("chat_"));
    }

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn an_id_read_again_soon_is_the_same_text() {
        fn read<T: serde::de::DeserializeOwned>(s: &str) -> T {
            serde_json::from_str(&serde_json::to_string(s).unwrap()).unwrap()
        }
        let lead: BotId = read("lead");
        let (a, b): (ThreadId, ThreadId) = (read("chat_1"), read("chat_1"));
        assert_eq!((a.as_str(), b.as_str()), ("chat_1", "chat_1"));
        // More ids than are kept: each still reads as itself, the first ones again too.
        for round in 0..2 {
            for i in 0..20 {
                let name = format!("handoff_{i}_{}", "x".repeat(i));
                assert_eq!(read::<HandoffId>(&name), name.as_str(), "round {round}");
                assert_eq!(read::<BotId>(&name), name.as_str(), "round {round}");
            }
        }
        let lead_again: BotId = read("lead");
        assert_eq!((lead.as_str(), lead_again.as_str()), ("lead", "lead"));
        #[cfg(not(target_pointer_width = "64"))]
        {
            assert!(std::sync::Arc::ptr_eq(&a.0, &b.0), "the second read shares the first one's text");
            let lead_soon: BotId = read("lead");
            assert!(std::sync::Arc::ptr_eq(&lead_again.0, &lead_soon.0));
            assert!(!std::sync::Arc::ptr_eq(&lead.0, &lead_again.0), "pushed out by the 20 agents read since");
            let c: ThreadId = read("chat_2");
            for i in 0..6 {
                let _: BotId = read(&format!("agent_{i}"));
            }
            let d: ThreadId = read("chat_2");
            assert!(std::sync::Arc::ptr_eq(&c.0, &d.0), "agents' ids do not push other ids out");
        }
    }

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn i4_nonces_are_keyed_and_not_the_plain_id_sequence() {
        let a = SeededIds::new(7);
        let n = a.id(IdKind::Nonce, 1);
        assert!(n.starts_with("n_") && n.len() == 18);
        assert_ne!(n[2..], a.id(IdKind::Handoff, 1)["handoff_".len()..]);
        assert_eq!(n, SeededIds::new(7).id(IdKind::Nonce, 1), "repeatable for one seed");
        let keyed = SeededIds::new(7).with_nonce_key(0x0123_4567_89ab_cdef_0011_2233_4455_6677);
        assert_ne!(keyed.id(IdKind::Nonce, 1), n, "a secret key changes every nonce");
        assert_eq!(keyed.id(IdKind::Handoff, 1), a.id(IdKind::Handoff, 1), "and no other id");
    }
}
