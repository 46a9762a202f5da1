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
        }
    }
}

/// Where the engine gets new ids. Contract: for a fixed source, `id(kind, n)` is the same
/// every time, and distinct `n` give distinct ids. The engine keeps `n` in its state (and so
/// in the log), which is why a reloaded engine never hands out an id twice.
pub trait IdSource {
    /// The id for the `seq`-th draw.
    fn id(&self, kind: IdKind, seq: u64) -> String;
}

/// The default source: `prefix + 16 hex digits` of splitmix64(seed + seq), a bijection on
/// u64, so ids never collide for one seed.
#[derive(Clone, Debug)]
pub struct SeededIds {
    seed: u64,
}

impl SeededIds {
    /// A source for one seed. Hosts pick a random seed per workspace; tests pick a fixed one.
    pub fn new(seed: u64) -> Self {
        SeededIds { seed }
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
        format!("{}{:016x}", kind.prefix(), splitmix64(self.seed.wrapping_add(seq)))
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
}
