//! Time as the core sees it: a `Timestamp` the host passes in, never a clock read.
use serde::{Deserialize, Serialize};

/// Milliseconds since the Unix epoch, UTC. Every state-changing call takes one as `now`.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(transparent)]
pub struct Timestamp(pub u64);

/// One second in milliseconds.
pub const SECOND: u64 = 1_000;
/// One minute in milliseconds.
pub const MINUTE: u64 = 60 * SECOND;
/// One hour in milliseconds.
pub const HOUR: u64 = 60 * MINUTE;
/// One day in milliseconds.
pub const DAY: u64 = 24 * HOUR;

impl Timestamp {
    /// The latest instant Baton accepts as `now` or as a time argument: 9999-12-31T23:59:59.999Z,
    /// the last one RFC 3339 can write (four-digit years). Anything later is refused with the
    /// field named; before this bound existed, times at or past 2^63 ms printed as 1969.
    pub const MAX: Timestamp = Timestamp(253_402_300_799_999);

    /// This instant plus `ms` milliseconds (saturating).
    pub fn plus(self, ms: u64) -> Timestamp {
        Timestamp(self.0.saturating_add(ms))
    }

    /// Milliseconds from `earlier` to `self`, zero if `earlier` is later.
    pub fn since(self, earlier: Timestamp) -> u64 {
        self.0.saturating_sub(earlier.0)
    }

    /// Whole seconds from `earlier` to `self`.
    pub fn secs_since(self, earlier: Timestamp) -> u64 {
        self.since(earlier) / SECOND
    }

    /// RFC 3339 in UTC with a `Z`; milliseconds are shown only when non-zero.
    pub fn to_iso(self) -> String {
        match i64::try_from(self.0).ok().and_then(chrono::DateTime::from_timestamp_millis) {
            Some(t) => t.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true),
            None => format!("@{}", self.0),
        }
    }

    /// Parses RFC 3339 / ISO 8601 with an offset (`2026-01-01T09:00:00Z`, `...+02:00`).
    pub fn parse_iso(s: &str) -> Option<Timestamp> {
        let t = chrono::DateTime::parse_from_rfc3339(s.trim()).ok()?;
        u64::try_from(t.timestamp_millis()).ok().map(Timestamp)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn iso_round_trip() {
        let t = Timestamp::parse_iso("2026-03-01T09:30:00Z").unwrap();
        assert_eq!(t.to_iso(), "2026-03-01T09:30:00Z");
        assert_eq!(t.plus(1500).to_iso(), "2026-03-01T09:30:01.500Z");
        assert_eq!(Timestamp::parse_iso("2026-03-01T11:30:00+02:00"), Some(t));
        assert_eq!(Timestamp::parse_iso("yesterday"), None);
        // Past what chrono can write: shown as raw milliseconds, never as a wrapped-around date.
        assert_eq!(Timestamp(1 << 63).to_iso(), "@9223372036854775808");
        assert_eq!(Timestamp::MAX.to_iso(), "9999-12-31T23:59:59.999Z");
    }
}
