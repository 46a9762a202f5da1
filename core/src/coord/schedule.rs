//! Schedules (rule A6): one-shot tasks and 5-field cron entries, fired by `tick`. Time forms
//! are read in the host's local offset (`Config::utc_offset_minutes`).
//!
//! The cron matcher is written here rather than taken from a crate: the well-kept cron crates
//! (`cron`, `croner`) enable chrono's `clock` feature, which brings a JS clock binding
//! (`js-sys`/`wasm-bindgen`) into `wasm32` builds of the core — a layer the core must not have.
use crate::ground::machine::{Lifecycle, Refused, Row};
use crate::ground::time::{forms, Timestamp, DAY, HOUR, MINUTE, SECOND};
use chrono::{Datelike, FixedOffset, NaiveDate, NaiveDateTime, TimeZone, Timelike};
use serde::{Deserialize, Serialize};

/// What a schedule runs on.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Target {
    /// One run at a time.
    Task,
    /// Runs on a 5-field cron expression.
    Cron,
    /// Both (list only).
    All,
}

impl Target {
    /// Wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Target::Task => "task",
            Target::Cron => "cron",
            Target::All => "all",
        }
    }
}

/// Where a schedule is.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ScheduleStatus {
    /// Waiting for its next run.
    Active,
    /// A task that has run (terminal).
    Fired,
    /// Removed; its skill is trashed (terminal).
    Removed,
}

/// What can happen to a schedule.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum ScheduleEvent {
    /// `schedules` mode=patch: a new time.
    Patch,
    /// `schedules` mode=remove.
    Remove,
    /// A one-shot task's time came.
    FireOnce,
    /// A cron entry's minute came; it waits for the next one.
    FireCron,
}

/// The schedule lifecycle (rule A6).
pub(crate) struct ScheduleLifecycle;

impl Lifecycle for ScheduleLifecycle {
    type State = ScheduleStatus;
    type Event = ScheduleEvent;
    const NAME: &'static str = "schedule";
    const ROWS: &'static [Row<ScheduleStatus, ScheduleEvent>] = {
        use ScheduleEvent as E;
        use ScheduleStatus as S;
        &[
            Row { from: S::Active, event: E::Patch, to: S::Active, does: "moved to a new time" },
            Row { from: S::Active, event: E::Remove, to: S::Removed, does: "cancelled; its skill is trashed" },
            Row { from: S::Active, event: E::FireOnce, to: S::Fired, does: "a task ran once (A6)" },
            Row {
                from: S::Active,
                event: E::FireCron,
                to: S::Active,
                does: "a cron entry ran and waits for its next minute",
            },
        ]
    };

    fn is_terminal(s: ScheduleStatus) -> bool {
        s != ScheduleStatus::Active
    }

    fn label(s: ScheduleStatus) -> &'static str {
        s.as_str()
    }

    fn explain(r: Refused<ScheduleStatus, ScheduleEvent>) -> Option<(String, Option<&'static str>)> {
        match r {
            Refused::Terminal { from: ScheduleStatus::Fired, .. } => {
                Some(("this schedule has already run".into(), Some("A6")))
            }
            Refused::Terminal { .. } => Some(("this schedule has already been removed".into(), Some("A6"))),
            Refused::Invalid { .. } => None,
        }
    }
}

impl ScheduleStatus {
    /// Wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            ScheduleStatus::Active => "active",
            ScheduleStatus::Fired => "fired",
            ScheduleStatus::Removed => "removed",
        }
    }
}

/// One scheduled run bound to a scheduler skill.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Schedule {
    /// Id.
    pub schedule_id: crate::ground::ids::ScheduleId,
    /// The session (thread) that queued it.
    pub thread_id: crate::ground::ids::ThreadId,
    /// Its bot.
    pub bot_id: String,
    /// The generated skill it runs.
    pub skill_name: String,
    /// `task` or `cron`.
    pub target: Target,
    /// For `task`: when, as given.
    pub time: Option<String>,
    /// For `cron`: the expression.
    pub cron: Option<String>,
    /// Next run.
    pub next_run: Option<Timestamp>,
    /// Runs so far.
    pub runs: u32,
    /// Last run.
    pub last_run: Option<Timestamp>,
    /// Status.
    pub status: ScheduleStatus,
    /// Created.
    pub created_at: Timestamp,
}

/// A scheduler skill, named by Baton with a generated suffix (hand-made names fail, A6).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Skill {
    /// Full generated name (`daily-digest-3f9a1c2e`).
    pub name: String,
    /// Moved to the trash when its schedule is removed.
    pub trashed: bool,
}

fn offset(minutes: i32) -> FixedOffset {
    FixedOffset::east_opt(minutes * 60).unwrap_or(FixedOffset::east_opt(0).expect("zero offset"))
}

fn local(now: Timestamp, minutes: i32) -> chrono::DateTime<FixedOffset> {
    let utc = chrono::DateTime::from_timestamp_millis(now.0 as i64).unwrap_or_default();
    utc.with_timezone(&offset(minutes))
}

fn from_local(naive: NaiveDateTime, minutes: i32) -> Option<Timestamp> {
    let t = offset(minutes).from_local_datetime(&naive).single()?;
    u64::try_from(t.timestamp_millis()).ok().map(Timestamp)
}

/// Reads a task time: `+5m`, `+1h30m` (d, h, m, s), `15:04` (later today only — a time
/// already past is an error, never tomorrow), `2006-01-02 15:04` (local), or RFC 3339.
pub(crate) fn parse_time(s: &str, now: Timestamp, utc_offset_minutes: i32) -> Result<Timestamp, String> {
    let t = s.trim();
    if let Some(rest) = t.strip_prefix('+') {
        let mut total = 0u64;
        let mut digits = String::new();
        for c in rest.chars() {
            if c.is_ascii_digit() {
                digits.push(c);
                continue;
            }
            let unit = match c {
                'd' => DAY,
                'h' => HOUR,
                'm' => MINUTE,
                's' => SECOND,
                _ => return Err(format!("'{t}': unknown unit '{c}' (use d, h, m, s)")),
            };
            let n: u64 = digits.parse().map_err(|_| format!("'{t}': a number must come before '{c}'"))?;
            total = n.checked_mul(unit).and_then(|x| total.checked_add(x)).ok_or(format!("'{t}' is too far"))?;
            digits.clear();
        }
        if !digits.is_empty() || total == 0 {
            return Err(format!("'{t}': write a positive duration such as +5m or +1h30m"));
        }
        return Ok(now.plus(total));
    }
    if let Some(clock) = forms::read_clock(t) {
        let today = local(now, utc_offset_minutes).date_naive();
        let at = from_local(today.and_time(clock), utc_offset_minutes).ok_or(format!("'{t}' does not exist today"))?;
        if at <= now {
            return Err(format!(
                "'{t}' has already passed today (it is {} here); a time of day never rolls over to tomorrow — give a date, e.g. '{} {t}'",
                forms::clock(&local(now, utc_offset_minutes)),
                forms::date(&today.succ_opt().unwrap_or(today))
            ));
        }
        return Ok(at);
    }
    if let Some(naive) = forms::read_date_clock(t) {
        return from_local(naive, utc_offset_minutes).ok_or(format!("'{t}' does not exist in the local offset"));
    }
    if let Some(at) = Timestamp::parse_iso(t) {
        return Ok(at);
    }
    Err(format!("'{t}' is not a time: use +5m, +1h30m, 15:04, 2006-01-02 15:04 or RFC 3339"))
}

/// A parsed 5-field cron expression: minute hour day-of-month month day-of-week.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct CronSpec {
    minutes: Vec<bool>,
    hours: Vec<bool>,
    days: Vec<bool>,
    months: Vec<bool>,
    weekdays: Vec<bool>,
    days_any: bool,
    weekdays_any: bool,
}

const MONTHS: [&str; 12] = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const WEEKDAYS: [&str; 7] = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];

fn field(spec: &str, name: &str, lo: u32, hi: u32, names: &[&str], name_base: u32) -> Result<Vec<bool>, String> {
    let mut set = vec![false; hi as usize + 1];
    let value = |v: &str| -> Result<u32, String> {
        if let Some(i) = names.iter().position(|n| n.eq_ignore_ascii_case(v)) {
            return Ok(i as u32 + name_base);
        }
        let n: u32 = v.parse().map_err(|_| format!("{name}: '{v}' is not a number"))?;
        if n < lo || n > hi {
            return Err(format!("{name}: {n} is outside {lo}-{hi}"));
        }
        Ok(n)
    };
    for part in spec.split(',') {
        let (range, step) = match part.split_once('/') {
            Some((r, s)) => {
                let s: u32 = s.parse().map_err(|_| format!("{name}: step '{s}' is not a number"))?;
                if s == 0 {
                    return Err(format!("{name}: a step of 0 never advances"));
                }
                (r, s)
            }
            None => (part, 1),
        };
        let (a, b) = if range == "*" {
            (lo, hi)
        } else if let Some((a, b)) = range.split_once('-') {
            (value(a)?, value(b)?)
        } else {
            let v = value(range)?;
            (v, if part.contains('/') { hi } else { v })
        };
        if a > b {
            return Err(format!("{name}: range {a}-{b} runs backwards"));
        }
        let mut v = a;
        while v <= b {
            set[v as usize] = true;
            v += step;
        }
    }
    Ok(set)
}

impl CronSpec {
    /// Parses `minute hour day-of-month month day-of-week` (`*`, lists, ranges, steps, month
    /// and weekday names; weekday 0 and 7 are Sunday). When both day fields are restricted a
    /// day matches either (as in classic cron).
    pub(crate) fn parse(expr: &str) -> Result<CronSpec, String> {
        let f: Vec<&str> = expr.split_whitespace().collect();
        if f.len() != 5 {
            return Err(format!(
                "'{expr}' has {} fields; a cron expression has 5: minute hour day month weekday",
                f.len()
            ));
        }
        let mut weekdays = field(f[4], "weekday", 0, 7, &WEEKDAYS, 0)?;
        if weekdays[7] {
            weekdays[0] = true;
        }
        Ok(CronSpec {
            minutes: field(f[0], "minute", 0, 59, &[], 0)?,
            hours: field(f[1], "hour", 0, 23, &[], 0)?,
            days: field(f[2], "day", 1, 31, &[], 0)?,
            months: field(f[3], "month", 1, 12, &MONTHS, 1)?,
            weekdays,
            days_any: f[2] == "*",
            weekdays_any: f[4] == "*",
        })
    }

    fn day_matches(&self, d: NaiveDate) -> bool {
        let dom = self.days[d.day() as usize];
        let dow = self.weekdays[d.weekday().num_days_from_sunday() as usize];
        let day = match (self.days_any, self.weekdays_any) {
            (true, true) => true,
            (false, true) => dom,
            (true, false) => dow,
            (false, false) => dom || dow,
        };
        day && self.months[d.month() as usize]
    }

    /// The first matching minute strictly after `after`, in the given local offset; `None`
    /// when nothing matches within eight years (e.g. `0 0 31 2 *`).
    pub(crate) fn next_after(&self, after: Timestamp, utc_offset_minutes: i32) -> Option<Timestamp> {
        let start = local(after, utc_offset_minutes);
        let mut day = start.date_naive();
        // From the next whole minute on the first day; from midnight on later days.
        let mut from = (start.hour(), start.minute() + 1);
        for _ in 0..(366 * 8) {
            if self.day_matches(day) {
                for h in from.0..24 {
                    if !self.hours[h as usize] {
                        continue;
                    }
                    let m0 = if h == from.0 { from.1 } else { 0 };
                    if let Some(m) = (m0..60).find(|m| self.minutes[*m as usize]) {
                        let naive = day.and_hms_opt(h, m, 0)?;
                        return from_local(naive, utc_offset_minutes);
                    }
                }
            }
            day = day.succ_opt()?;
            from = (0, 0);
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> Timestamp {
        Timestamp::parse_iso(s).unwrap()
    }

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn a6_time_forms() {
        let now = at("2026-03-10T14:00:00Z");
        let cases: &[(&str, i32, Result<&str, &str>)] = &[
            ("+5m", 0, Ok("2026-03-10T14:05:00Z")),
            ("+1h30m", 0, Ok("2026-03-10T15:30:00Z")),
            ("+2d", 0, Ok("2026-03-12T14:00:00Z")),
            ("+90s", 0, Ok("2026-03-10T14:01:30Z")),
            ("15:04", 0, Ok("2026-03-10T15:04:00Z")),
            ("13:59", 0, Err("already passed today")),
            ("14:00", 0, Err("already passed today")),
            // Local offset +02:00: it is 16:00 there, so 15:04 has passed and 17:30 has not.
            ("15:04", 120, Err("already passed today")),
            ("17:30", 120, Ok("2026-03-10T15:30:00Z")),
            // Local offset -05:00: it is 09:00 there.
            ("23:59", -300, Ok("2026-03-11T04:59:00Z")),
            ("2026-03-11 08:00", 0, Ok("2026-03-11T08:00:00Z")),
            ("2026-03-11 08:00", 330, Ok("2026-03-11T02:30:00Z")),
            ("2026-03-11T08:00:00+01:00", 0, Ok("2026-03-11T07:00:00Z")),
            ("+0m", 0, Err("positive duration")),
            ("+5x", 0, Err("unknown unit")),
            ("tomorrow", 0, Err("is not a time")),
            ("25:00", 0, Err("is not a time")),
        ];
        for (input, off, want) in cases {
            let got = parse_time(input, now, *off);
            match (want, got) {
                (Ok(w), Ok(g)) => assert_eq!(g.to_iso(), *w, "{input} @ {off}"),
                (Err(w), Err(g)) => assert!(g.contains(w), "{input} @ {off}: {g}"),
                (w, g) => panic!("{input} @ {off}: wanted {w:?}, got {g:?}"),
            }
        }
    }

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn a6_time_of_day_near_midnight_never_rolls_over() {
        // 23:50 local: 23:55 is later today; 00:10 is tomorrow and so refused.
        let now = at("2026-12-31T23:50:00Z");
        assert_eq!(parse_time("23:55", now, 0).unwrap().to_iso(), "2026-12-31T23:55:00Z");
        assert!(parse_time("00:10", now, 0).unwrap_err().contains("2027-01-01 00:10"));
    }

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn a6_cron_next_runs() {
        let next = |expr: &str, after: &str, off: i32| {
            CronSpec::parse(expr).unwrap().next_after(at(after), off).map(|t| t.to_iso())
        };
        let cases: &[(&str, &str, i32, Option<&str>)] = &[
            ("*/15 * * * *", "2026-03-10T14:07:10Z", 0, Some("2026-03-10T14:15:00Z")),
            ("0 9 * * *", "2026-03-10T09:00:00Z", 0, Some("2026-03-11T09:00:00Z")),
            ("0 9 * * 1-5", "2026-03-13T10:00:00Z", 0, Some("2026-03-16T09:00:00Z")), // Fri → Mon
            ("30 23 31 12 *", "2026-03-10T00:00:00Z", 0, Some("2026-12-31T23:30:00Z")),
            ("0 0 1 jan *", "2026-12-31T23:59:00Z", 0, Some("2027-01-01T00:00:00Z")),
            ("0 0 29 2 *", "2026-03-01T00:00:00Z", 0, Some("2028-02-29T00:00:00Z")),
            ("0 9 * * *", "2026-03-10T06:00:00Z", 120, Some("2026-03-10T07:00:00Z")), // 09:00 at +02:00
            ("0 0 * * sun", "2026-03-10T00:00:00Z", -300, Some("2026-03-15T05:00:00Z")),
            ("0 12 13 * 5", "2026-03-01T00:00:00Z", 0, Some("2026-03-06T12:00:00Z")), // day 13 or Friday
            ("0 0 31 2 *", "2026-03-01T00:00:00Z", 0, None),
        ];
        for (expr, after, off, want) in cases {
            assert_eq!(next(expr, after, *off).as_deref(), *want, "{expr} after {after} @ {off}");
        }
        for bad in [
            "* * * *",
            "60 * * * *",
            "* 24 * * *",
            "* * 0 * *",
            "* * * 13 *",
            "*/0 * * * *",
            "5-1 * * * *",
            "x * * * *",
        ] {
            assert!(CronSpec::parse(bad).is_err(), "{bad}");
        }
    }
}
