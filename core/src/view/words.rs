//! What a console says to a person, in one place: durations and times in words, what a status
//! means and what the engine's reasons say, ids shortened. Every view formats through here, so
//! the tree, the graph, the lanes, the inbox and the detail panels speak the same language.
//! Pure functions of their inputs and `now` (the console's clock), tested natively.
use crate::ground::time::{Timestamp, DAY, HOUR, MINUTE, SECOND};

/// A span of milliseconds in words, to two units: `less than a second`, `42 s`, `6 min`,
/// `1 h 38 min`, `3 days 4 h`.
pub fn duration(ms: u64) -> String {
    if ms < SECOND {
        return "less than a second".into();
    }
    if ms < MINUTE {
        return format!("{} s", ms / SECOND);
    }
    if ms < HOUR {
        return format!("{} min", ms / MINUTE);
    }
    if ms < DAY {
        let (h, m) = (ms / HOUR, ms % HOUR / MINUTE);
        return if m == 0 { format!("{h} h") } else { format!("{h} h {m} min") };
    }
    let (d, h) = (ms / DAY, ms % DAY / HOUR);
    if h == 0 {
        count(d, "day", "days")
    } else {
        format!("{} {h} h", count(d, "day", "days"))
    }
}

/// A count with its noun: `1 tool call`, `3 tool calls`.
pub fn count(n: u64, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

/// A span in the short form dense rows use: `42s`, `6m`, `1h 38m`, `3d 4h`.
pub fn compact(ms: u64) -> String {
    let s = ms / SECOND;
    match s {
        0..=59 => format!("{s}s"),
        60..=3599 => format!("{}m", s / 60),
        3600..=86_399 => format!("{}h {}m", s / 3600, (s % 3600) / 60),
        _ => format!("{}d {}h", s / 86_400, (s % 86_400) / 3600),
    }
}

/// A moment relative to `now`: `just now`, `3 min ago`, `in 2 h 5 min`.
pub fn relative(now: Timestamp, at: Timestamp) -> String {
    if at <= now {
        let ago = now.since(at);
        if ago < 5 * SECOND {
            "just now".into()
        } else {
            format!("{} ago", duration(ago))
        }
    } else {
        format!("in {}", duration(at.since(now)))
    }
}

/// A moment on the engine's clock (UTC), to the second: `2026-11-30 09:01:00`.
pub fn clock(at: Timestamp) -> String {
    let iso = at.to_iso();
    iso.get(..19).map(|s| s.replace('T', " ")).unwrap_or(iso)
}

/// A moment as a person reads it in full (for a hover): `2026-11-30 09:01:00 UTC`.
pub fn absolute(at: Timestamp) -> String {
    format!("{} UTC", clock(at))
}

/// An id shortened for reading (`handoff_7f3a2c…`): its kind and the first six characters of
/// the rest. Ids already short stay whole; the full id stays one click away in the views.
pub fn short_id(id: &str) -> String {
    match id.split_once('_') {
        Some((kind, rest)) if rest.chars().count() > 8 => {
            format!("{kind}_{}…", rest.chars().take(6).collect::<String>())
        }
        _ => id.to_string(),
    }
}

/// A handoff's status as the engine answers it (stored or live: `running`, `stalled`,
/// `watch_expired`, `child_missing`, …) in words, with what it means for the person watching.
pub fn status(status: &str) -> (&'static str, &'static str) {
    match status {
        "started" => ("started", "Handed off; the child has not shown any activity yet."),
        "running" => ("running", "The child is working on it."),
        "first_response" => ("first response", "The child has answered once; it may go on working."),
        "stalled" => ("quiet", "The child has shown no activity for a while; it will be reminded to report."),
        "watch_expired" | "timeout" => (
            "watch ended",
            "The parent stopped waiting for it; the child keeps working and reports when done. Not a failure.",
        ),
        "completed" => ("completed", "The child finished and its result is in."),
        "expired_unnotified" => ("completed, not told", "The child finished, but no parent was waiting to be told."),
        "error" => ("failed", "The child failed; the error says why."),
        "cancelled" => ("cancelled", "The parent stopped it; nothing more will come of it."),
        "materialize_failed" => ("not started", "The child thread could not be made."),
        "abandoned" => ("abandoned", "The child went quiet for good, or its thread is gone."),
        "undeliverable" => ("undeliverable", "The result could not be delivered to the caller's callback."),
        "child_missing" => ("child missing", "The child's thread no longer exists."),
        // A relay thread's own statuses (completed and cancelled read as above).
        "pending" => ("pending", "Sent to a teammate, not accepted yet."),
        "accepted" => ("accepted", "The teammate accepted it and is working on it."),
        _ => ("unknown", "A status this console does not know."),
    }
}

/// Where a mailbox message stands, for a person (M3, M5).
pub fn mail_state(state: crate::handoff::mailbox::MailState) -> &'static str {
    use crate::handoff::mailbox::MailState;
    match state {
        MailState::Queued => "waiting for the thread's next turn",
        MailState::Delivered => "delivered",
        MailState::Read => "read",
    }
}

/// Why the parent has not been told of a finished handoff yet, in words, from the engine's
/// reason (`finished_<s>_ago`, `parent_idle_<s>s`, `submit_failed`).
pub fn not_told(reason: &str) -> String {
    let secs = |s: &str| s.parse::<u64>().ok().map(|n| duration(n * SECOND));
    if let Some(n) = reason.strip_prefix("finished_").and_then(|r| r.strip_suffix("_ago")).and_then(secs) {
        return format!("It finished {n} ago, when no parent was waiting to be told.");
    }
    if let Some(n) = reason.strip_prefix("parent_idle_").and_then(|r| r.strip_suffix('s')).and_then(secs) {
        return format!(
            "The report waits in the parent's mailbox; the parent has been idle for {n} and reads it at its next turn."
        );
    }
    if reason == "submit_failed" {
        return "Posting the result to the caller's callback failed.".into();
    }
    format!("The engine's reason: {reason}.")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn durations_read_in_two_units_at_most() {
        assert_eq!(duration(400), "less than a second");
        assert_eq!(duration(42 * SECOND), "42 s");
        assert_eq!(duration(6 * MINUTE + 59 * SECOND), "6 min");
        assert_eq!(duration(HOUR), "1 h");
        assert_eq!(duration(5880 * SECOND), "1 h 38 min");
        assert_eq!(duration(DAY), "1 day");
        assert_eq!(duration(3 * DAY + 4 * HOUR + 5 * MINUTE), "3 days 4 h");
        assert_eq!(compact(5880 * SECOND), "1h 38m");
        assert_eq!(
            (count(1, "tool call", "tool calls"), count(0, "nudge", "nudges")),
            ("1 tool call".into(), "0 nudges".into())
        );
        assert_eq!(compact(3 * DAY + 4 * HOUR), "3d 4h");
    }

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn moments_read_relative_to_now() {
        let now = Timestamp(1_767_600_000_000);
        assert_eq!(relative(now, now), "just now");
        assert_eq!(relative(now, Timestamp(now.0 - 3 * MINUTE)), "3 min ago");
        assert_eq!(relative(now, now.plus(2 * HOUR + 5 * MINUTE)), "in 2 h 5 min");
        assert_eq!(absolute(Timestamp(1_767_600_000_000)), "2026-01-05 08:00:00 UTC");
    }

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn ids_shorten_and_reasons_read_as_sentences() {
        assert_eq!(short_id("handoff_0123456789abcdef"), "handoff_012345…");
        assert_eq!(short_id("chat_main"), "chat_main");
        assert_eq!(
            not_told("parent_idle_5880s"),
            "The report waits in the parent's mailbox; the parent has been idle for 1 h 38 min and reads it at its next turn."
        );
        assert_eq!(not_told("finished_90_ago"), "It finished 1 min ago, when no parent was waiting to be told.");
        for s in crate::handoff::Status::ALL {
            let name = serde_json::to_value(s).unwrap();
            assert_ne!(status(name.as_str().unwrap()).0, "unknown", "{s:?}");
        }
        for live in ["stalled", "child_missing", "pending", "accepted"] {
            assert_ne!(status(live).0, "unknown");
        }
    }
}
