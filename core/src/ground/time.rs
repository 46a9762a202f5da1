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

/// The fixed forms Baton reads and writes besides RFC 3339 (`15:04`, `2006-01-02`,
/// `2006-01-02 15:04`, and those with an offset), without chrono's format strings: its
/// strftime reader and writer were 14 KB of the console's gzipped wasm. Each reader takes
/// exactly what chrono's `parse_from_str` takes for its pattern (a test compares them): space
/// before a number, one or two digits for a field of two, a year of up to four digits or
/// signed, and nothing left over.
pub(crate) mod forms {
    use chrono::{Datelike, NaiveDate, NaiveDateTime, NaiveTime, Timelike};

    /// What is left to read.
    struct Scan<'a>(&'a str);

    impl Scan<'_> {
        /// At most `max` ASCII digits (at least one), after any space when `trim`.
        fn number(&mut self, max: usize, trim: bool) -> Option<i64> {
            let s = if trim { self.0.trim_start() } else { self.0 };
            let n = s.bytes().take(max).take_while(u8::is_ascii_digit).count();
            let mut v = 0i64;
            for c in s.bytes().take(n) {
                v = v.checked_mul(10)?.checked_add(i64::from(c - b'0'))?;
            }
            self.0 = &s[n..];
            (n > 0).then_some(v)
        }

        /// A year: four digits at most, or any number of them after a sign.
        fn year(&mut self) -> Option<i32> {
            self.0 = self.0.trim_start();
            let v = if let Some(rest) = self.0.strip_prefix('-') {
                self.0 = rest;
                0i64.checked_sub(self.number(usize::MAX, false)?)?
            } else if let Some(rest) = self.0.strip_prefix('+') {
                self.0 = rest;
                self.number(usize::MAX, false)?
            } else {
                self.number(4, false)?
            };
            i32::try_from(v).ok()
        }

        fn literal(&mut self, text: &str) -> Option<()> {
            self.0 = self.0.strip_prefix(text)?;
            Some(())
        }

        fn date(&mut self) -> Option<NaiveDate> {
            let y = self.year()?;
            self.literal("-")?;
            let m = self.number(2, true)?;
            self.literal("-")?;
            let d = self.number(2, true)?;
            NaiveDate::from_ymd_opt(y, u32::try_from(m).ok()?, u32::try_from(d).ok()?)
        }

        fn clock(&mut self) -> Option<NaiveTime> {
            let h = self.number(2, true)?;
            self.literal(":")?;
            let m = self.number(2, true)?;
            NaiveTime::from_hms_opt(u32::try_from(h).ok()?, u32::try_from(m).ok()?, 0)
        }

        fn end<T>(self, v: T) -> Option<T> {
            self.0.is_empty().then_some(v)
        }
    }

    /// `15:04`.
    pub(crate) fn read_clock(s: &str) -> Option<NaiveTime> {
        let mut r = Scan(s);
        let t = r.clock()?;
        r.end(t)
    }

    /// `2006-01-02`.
    pub(crate) fn read_date(s: &str) -> Option<NaiveDate> {
        let mut r = Scan(s);
        let d = r.date()?;
        r.end(d)
    }

    /// `2006-01-02 15:04` (the space may be any run of space, or none: the hour's number
    /// skips it).
    pub(crate) fn read_date_clock(s: &str) -> Option<NaiveDateTime> {
        let mut r = Scan(s);
        let d = r.date()?;
        let t = r.clock()?;
        r.end(d.and_time(t))
    }

    /// `15:04`.
    pub(crate) fn clock(t: &impl Timelike) -> String {
        format!("{:02}:{:02}", t.hour(), t.minute())
    }

    /// `2006-01-02`; a year outside 0–9999 carries its sign.
    pub(crate) fn date(d: &impl Datelike) -> String {
        let y = d.year();
        let year = if (0..=9999).contains(&y) { format!("{y:04}") } else { format!("{y:+05}") };
        format!("{year}-{:02}-{:02}", d.month(), d.day())
    }

    /// `2006-01-02 15:04 +09:30`.
    pub(crate) fn date_clock_offset(t: &chrono::DateTime<chrono::FixedOffset>) -> String {
        let off = t.offset().local_minus_utc() / 60;
        let sign = if off < 0 { '-' } else { '+' };
        format!("{} {} {sign}{:02}:{:02}", date(t), clock(t), off.abs() / 60, off.abs() % 60)
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

    /// Each fixed form reads what chrono's `parse_from_str` reads for its pattern, and writes
    /// what its `format` writes.
    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn the_fixed_forms_read_and_write_as_chrono_does() {
        use super::forms;
        use chrono::{NaiveDate, NaiveDateTime, NaiveTime, TimeZone};
        let parts = [
            "",
            " ",
            "  ",
            "0",
            "00",
            "1",
            "01",
            "9",
            "09",
            "12",
            "15",
            "23",
            "24",
            "29",
            "30",
            "31",
            "32",
            "59",
            "60",
            "99",
            "123",
            "2026",
            "02026",
            "12345",
            "-1",
            "+1",
            "-2026",
            "+20260",
            "- 1",
            "x",
            "\u{3000}5",
        ];
        let seps = [":", "-", " ", "", "::", "T"];
        let mut inputs = Vec::new();
        for a in parts {
            for s1 in seps {
                for b in parts {
                    inputs.push(format!("{a}{s1}{b}"));
                    for s2 in ["-", " "] {
                        for c in
                            ["01", "1", "31", "30", " 2", "02 15:04", "02  1:5", "0215:04", "02 24:00", "02 15:04 "]
                        {
                            inputs.push(format!("{a}{s1}{b}{s2}{c}"));
                        }
                    }
                }
            }
        }
        inputs.extend(
            ["2026-02-29", "2024-02-29", "2026-01-02 15:04", "262144-01-01", "+262143-01-01"].map(String::from),
        );
        for s in &inputs {
            assert_eq!(forms::read_clock(s), NaiveTime::parse_from_str(s, "%H:%M").ok(), "{s:?}");
            assert_eq!(forms::read_date(s), NaiveDate::parse_from_str(s, "%Y-%m-%d").ok(), "{s:?}");
            assert_eq!(forms::read_date_clock(s), NaiveDateTime::parse_from_str(s, "%Y-%m-%d %H:%M").ok(), "{s:?}");
        }
        for y in [-262_143, -10_000, -1, 0, 7, 999, 2026, 9999, 10_000, 262_142] {
            let d = NaiveDate::from_ymd_opt(y, 3, 4).unwrap();
            assert_eq!(forms::date(&d), d.format("%Y-%m-%d").to_string());
        }
        for (ms, off) in [
            (0i64, 0),
            (1_767_600_000_000, 570),
            (1_767_600_000_000, -30),
            (1_767_600_000_000, -720),
            (253_402_300_799_999, 840),
        ] {
            let t = chrono::FixedOffset::east_opt(off * 60).unwrap().timestamp_millis_opt(ms).unwrap();
            assert_eq!(forms::date_clock_offset(&t), t.format("%Y-%m-%d %H:%M %:z").to_string());
            assert_eq!(forms::clock(&t), t.format("%H:%M").to_string());
        }
    }
}
