//! Time rules, run from an explicit `tick(now)`: watch windows (G9), reminders (S7),
//! abandonment (S8) and the delivery sweep (M5). `next_deadline` says when to call back.
use crate::coord::schedule::{CronSpec, Schedule, ScheduleEvent, ScheduleLifecycle, Target};
use crate::engine::effect::Effect;
use crate::engine::error::CallError;
use crate::engine::log::Change;
use crate::engine::machine::next;
use crate::engine::state::State;
use crate::engine::time::{Timestamp, MINUTE};
use crate::engine::tx::Tx;
use crate::handoff::lifecycle::Event;
use crate::handoff::live::{quiet_since, ABANDON_AFTER_MS, MAX_NUDGES, NUDGE_EVERY_MS, STALL_AFTER_MS};
use crate::handoff::mailbox::{MailState, SWEEP_PERIOD_MS};
use crate::handoff::thread::Activity;
use crate::handoff::{Handoff, OnCompletion};
use crate::sibling::{session_transition, AuditEntry, SessionEvent, SiblingSession};

/// When each time rule next applies to one open handoff.
struct Due {
    watch: Option<Timestamp>,
    nudge: Option<Timestamp>,
    abandon: Option<Timestamp>,
}

fn due(st: &State, h: &Handoff, act: &Activity) -> Due {
    let child = h.child_thread_id.as_ref().and_then(|c| st.threads.get(c)).filter(|c| c.deleted_at.is_none());
    // Quiet can be established only for a readable child that is not mid-turn (S8).
    let quiet_known = child.is_some_and(|c| c.readable) && !act.mid_turn;
    let since = quiet_since(h, act);
    // Only a child that still owes its report is reminded: not one whose result is in (held
    // by S5, or awaiting its callback).
    let owes_report =
        h.spec.on_completion == OnCompletion::Notify && h.held_report.is_none() && h.finished_at.is_none();
    let nudge = (quiet_known && owes_report && h.nudges_sent < MAX_NUDGES).then(|| {
        let after_quiet = since.plus(STALL_AFTER_MS);
        h.last_nudge_at.map_or(after_quiet, |n| after_quiet.max(n.plus(NUDGE_EVERY_MS)))
    });
    Due { watch: h.watch_until, nudge, abandon: quiet_known.then(|| since.plus(ABANDON_AFTER_MS)) }
}

/// When an active sibling session times out: its receiving thread's last activity (or the
/// session's start) plus the idle timeout.
fn session_due(st: &State, s: &SiblingSession) -> Timestamp {
    let last = st.activity.get(&s.sibling_thread).and_then(|a| a.last_activity_at).unwrap_or(s.created_at);
    last.max(s.created_at).plus(s.idle_timeout_ms)
}

/// The earliest time at which `tick` has something to do, if any.
pub(crate) fn next_deadline(st: &State) -> Option<Timestamp> {
    let mut next = st.sweep_due;
    for s in st.active_sessions() {
        let t = session_due(st, s);
        next = Some(next.map_or(t, |n| n.min(t)));
    }
    for t in st.active_schedules().filter_map(|s| s.next_run) {
        next = Some(next.map_or(t, |n| n.min(t)));
    }
    for l in st.live_legs() {
        let t = l.queued_at.plus(l.timeout_ms);
        next = Some(next.map_or(t, |n| n.min(t)));
    }
    for h in st.open_handoffs() {
        let act = h.child_thread_id.as_ref().and_then(|c| st.activity.get(c)).cloned().unwrap_or_default();
        let d = due(st, h, &act);
        for t in [d.watch, d.nudge, d.abandon].into_iter().flatten() {
            next = Some(next.map_or(t, |n| n.min(t)));
        }
    }
    next
}

/// Runs every time rule due at or before `tx.now`.
pub(crate) fn tick(tx: &mut Tx<'_>) -> Result<(), CallError> {
    let now = tx.now;
    let open: Vec<Handoff> = tx.st.open_handoffs().cloned().collect();
    for mut h in open {
        let act = h.child_thread_id.as_deref().map(|c| tx.activity(c)).unwrap_or_default();
        let d = due(tx.st, &h, &act);
        let mut changed = false;
        if d.watch.is_some_and(|w| w <= now) {
            // G9: the window closed; the child keeps running; not a failure.
            tx.advance(&mut h, Event::WatchExpired)?;
            h.watch_until = None;
            tx.emit(Effect::WatchReturned {
                handoff_id: h.handoff_id.clone(),
                parent_thread_id: h.parent_thread_id.clone(),
                status: "watch_expired".into(),
                result: None,
                partial_result: act.last_response.clone(),
            });
            tx.send_callback(&mut h, "watch_expired");
            changed = true;
        }
        if d.abandon.is_some_and(|a| a <= now) {
            // S8: quiet for seven days.
            tx.advance(&mut h, Event::Abandon)?;
            h.error = Some(format!("no child activity for 7 days (since {})", quiet_since(&h, &act).to_iso()));
            h.watch_until = None;
            changed = true;
        } else if d.nudge.is_some_and(|n| n <= now) {
            // S7: remind the quiet child to report.
            h.nudges_sent += 1;
            h.last_nudge_at = Some(now);
            let child = h.child_thread_id.clone().unwrap_or_default();
            tx.emit(Effect::Nudge {
                handoff_id: h.handoff_id.clone(),
                thread_id: child,
                bot_id: h.child_bot_id.clone(),
                nudge_no: h.nudges_sent,
                text: format!(
                    "[Reminder {}/{MAX_NUDGES}] Thread {} is waiting for your report on: {}. When you are finished, blocked or failed, report with mailbox_action(action=\"SEND_MESSAGE\", to_thread_id=\"{}\", to_bot_id=\"{}\", body=...).",
                    h.nudges_sent, h.parent_thread_id, h.spec.task, h.parent_thread_id, h.parent_bot_id
                ),
            });
            changed = true;
        }
        if changed {
            tx.put_handoff(h);
        }
    }
    let due_sessions: Vec<SiblingSession> =
        tx.st.active_sessions().filter(|s| session_due(tx.st, s) <= now).cloned().collect();
    for mut s in due_sessions {
        // The sibling stayed quiet past its idle timeout: control goes back to the originator.
        if let Some(to) = session_transition(s.status, SessionEvent::IdleTimeout) {
            s.status = to;
            s.ended_at = Some(now);
            let minutes = s.idle_timeout_ms / MINUTE;
            crate::sibling::flow::resume_originator(
                tx,
                &s,
                format!("[Bot resumed — the sibling agent was quiet for {minutes} minutes and control came back. Outcome: timed_out.]"),
            );
            tx.put(Change::Audit(AuditEntry {
                at: now,
                session_id: s.session_id.clone(),
                actor: "baton".into(),
                action: "timed_out".into(),
                outcome: None,
                summary: None,
                reason: Some(format!("no activity for {minutes} minutes")),
            }));
            tx.put(Change::Session(std::sync::Arc::new(s)));
        }
    }
    // A6: due schedules run; a task fires once, a cron entry moves to its next match (runs
    // missed while no tick came are not replayed one by one: one run, then the next match).
    let due_schedules: Vec<Schedule> =
        tx.st.active_schedules().filter(|s| s.next_run.is_some_and(|t| t <= now)).cloned().collect();
    for mut s in due_schedules {
        tx.emit(Effect::RunSchedule {
            schedule_id: s.schedule_id.clone(),
            skill_name: s.skill_name.clone(),
            thread_id: s.thread_id.clone(),
            bot_id: s.bot_id.clone(),
        });
        s.runs += 1;
        s.last_run = Some(now);
        let event = if s.target == Target::Cron { ScheduleEvent::FireCron } else { ScheduleEvent::FireOnce };
        s.status = next::<ScheduleLifecycle>(s.status, event)?;
        s.next_run = match event {
            ScheduleEvent::FireCron => s
                .cron
                .as_deref()
                .and_then(|c| CronSpec::parse(c).ok())
                .and_then(|c| c.next_after(now, tx.st.config.utc_offset_minutes)),
            _ => None,
        };
        tx.put(Change::Schedule(std::sync::Arc::new(s)));
    }
    // A2, A5: legs past their timeout (queued time included) end; queued ones take the slots.
    crate::coord::legflow::time_out_legs(tx);
    if tx.sweep_due().is_some_and(|d| d <= now) {
        sweep(tx);
    }
    Ok(())
}

/// M5: wake idle recipients of waiting mail while agent slots are free; run again in 30 s
/// while mail waits.
fn sweep(tx: &mut Tx<'_>) {
    let slots = tx.st.config.agent_slots as usize;
    let mut busy = tx.st.busy_count();
    let recipients: Vec<String> = tx.st.threads_with_mail().cloned().collect();
    let mut still_waiting = false;
    for thread_id in recipients {
        let Some(thread) = tx.thread(&thread_id).filter(|t| t.deleted_at.is_none()).cloned() else {
            continue;
        };
        let act = tx.activity(&thread_id);
        if act.mid_turn || busy >= slots {
            still_waiting = true;
            continue;
        }
        let mail: Vec<_> = tx.st.queued_mail(&thread_id).cloned().collect();
        let ids = mail.iter().map(|m| m.message_id.clone()).collect();
        for mut m in mail {
            m.state = MailState::Delivered;
            tx.put_message(m);
        }
        // The wake starts a turn; the host reports its end with `turn_ended`.
        tx.touch(&thread_id, |a| a.mid_turn = true);
        busy += 1;
        let identity = tx.wake_identity(&thread);
        tx.emit(Effect::Wake {
            thread_id: thread_id.clone(),
            bot_id: thread.bot_id.clone(),
            identity,
            message_ids: ids,
        });
    }
    let next = still_waiting.then(|| tx.now.plus(SWEEP_PERIOD_MS));
    tx.put(Change::Sweep { due: next });
}
