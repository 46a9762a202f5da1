//! Schedules as a timed part (A6): what fires when its time comes.
use crate::coord::schedule::{CronSpec, Schedule, ScheduleEvent, ScheduleLifecycle, Target};
use crate::coord::store::{CoordState, CoordTx};
use crate::handoff::store::HandoffState;

/// The schedules' timed part (A6), by name (`surface::TIMED` lists it): due entries run; a
/// task fires once, a cron entry moves to its next match (runs missed while no tick came are
/// not replayed one by one).
pub(crate) const NAME: &str = "schedules";

/// When the first active schedule is due.
pub(crate) fn deadline(st: &impl CoordState) -> Option<crate::ground::time::Timestamp> {
    st.active_schedules().filter_map(|s| s.next_run).min()
}

/// Fires the schedules that are due.
pub(crate) fn on_due<'a>(tx: &mut impl CoordTx<'a>) -> Result<(), crate::ground::error::CallError> {
    use crate::ground::machine::next;
    use crate::handoff::effect::Effect;
    let now = tx.now();
    let due_schedules: Vec<Schedule> =
        tx.st().active_schedules().filter(|s| s.next_run.is_some_and(|t| t <= now)).cloned().collect();
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
                .and_then(|c| c.next_after(now, tx.st().config().utc_offset_minutes)),
            _ => None,
        };
        tx.put_schedule(s);
    }
    Ok(())
}
