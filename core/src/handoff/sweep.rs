//! The mail sweep (M5) as a timed part: wake idle recipients of waiting mail while agent
//! slots are free, every 30 s while mail waits.
use crate::ground::error::CallError;
use crate::ground::time::Timestamp;
use crate::handoff::effect::{Effect, WakeMail};
use crate::handoff::flow::Flow;
use crate::handoff::mailbox::{MailState, SWEEP_PERIOD_MS};
use crate::handoff::store::{HandoffState, HandoffTx};

/// The mail sweep's timed part, by name (`surface::TIMED` lists it).
pub(crate) const NAME: &str = "mail sweep";

/// When the sweep is next due.
pub(crate) fn deadline(st: &impl HandoffState) -> Option<Timestamp> {
    st.next_sweep()
}

/// Sweeps, when due.
pub(crate) fn on_due<'a>(tx: &mut impl HandoffTx<'a>) -> Result<(), CallError> {
    if tx.sweep_due().is_some_and(|d| d <= tx.now()) {
        sweep(tx);
    }
    Ok(())
}

/// M5: wake idle recipients of waiting mail while agent slots are free; run again in 30 s
/// while mail waits.
fn sweep<'a>(tx: &mut impl HandoffTx<'a>) {
    let slots = tx.st().config().agent_slots as usize;
    let mut busy = tx.st().busy_count();
    let mut still_waiting = false;
    let mut after = None;
    loop {
        // With every slot taken and one recipient left waiting, every later one can only wait
        // too (`busy` never falls here): the outcome is already known, so a backlog of waiting
        // recipients costs one step, not one decoded thread each. The recipients are taken in
        // id order one at a time; the loop only removes the current one from the index.
        if still_waiting && busy >= slots {
            break;
        }
        let Some(thread_id) = tx.st().next_thread_with_mail(after.as_ref()).cloned() else {
            break;
        };
        after = Some(thread_id.clone());
        let Some(thread) = tx.thread(&thread_id).filter(|t| t.deleted_at.is_none()).cloned() else {
            continue;
        };
        let act = tx.activity(&thread_id);
        if act.mid_turn || busy >= slots {
            still_waiting = true;
            continue;
        }
        let mail: Vec<_> = tx.st().queued_mail(&thread_id).cloned().collect();
        let ids = mail.iter().map(|m| m.message_id.clone()).collect();
        let messages = mail
            .iter()
            .map(|m| WakeMail { mail: crate::handoff::mailbox::MailItem::of(m), system: m.system })
            .collect();
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
            bot_id: thread.bot_id.as_str().to_owned(),
            identity,
            message_ids: ids,
            messages,
        });
    }
    let next = still_waiting.then(|| tx.now().plus(SWEEP_PERIOD_MS));
    tx.set_sweep(next);
}
