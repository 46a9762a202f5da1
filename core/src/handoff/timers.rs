//! The handoff's time rules: watch windows (G9), reminders (S7) and abandonment (S8).
use crate::ground::error::CallError;
use crate::ground::time::Timestamp;
use crate::handoff::effect::Effect;
use crate::handoff::flow::Flow;
use crate::handoff::lifecycle::Event;
use crate::handoff::live::{due_with, quiet_since, Due, MAX_NUDGES};
use crate::handoff::store::{HandoffState, HandoffTx};
use crate::handoff::thread::Activity;
use crate::handoff::Handoff;

/// The handoff's timed part, by name (`surface::TIMED` lists it).
pub(crate) const NAME: &str = "handoff watch, reminders, abandonment";

fn due(st: &impl HandoffState, h: &Handoff, act: &Activity) -> Due {
    due_with(h, h.child_thread_id.as_ref().and_then(|c| st.threads().get(c)).map(|t| &**t), act)
}

/// The earliest time a rule applies to an open handoff: the state's due index, which apply
/// keeps at `State::due_of` of each open handoff (checked against a scan in debug builds).
pub(crate) fn deadline(st: &impl HandoffState) -> Option<Timestamp> {
    let next = st.next_handoff_due();
    debug_assert_eq!(next, st.open_handoffs().filter_map(|h| st.due_of(h).earliest()).min());
    next
}

/// Does what the rules make due by the command's time.
pub(crate) fn on_due<'a>(tx: &mut impl HandoffTx<'a>) -> Result<(), CallError> {
    let now = tx.now();
    // Only the handoffs a rule applies to by now, oldest first: what a walk over every open
    // handoff would act on, in the same order. The handoff rules run first in a tick, so
    // nothing is staged yet and the state's due index is current.
    let open: Vec<Handoff> = tx.st().handoffs_due(now).into_iter().cloned().collect();
    for mut h in open {
        let act = h.child_thread_id.as_deref().map(|c| tx.activity(c)).unwrap_or_default();
        let d = due(tx.st(), &h, &act);
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
                bot_id: h.child_bot_id.as_str().to_owned(),
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
    Ok(())
}
