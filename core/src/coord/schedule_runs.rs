//! Schedules as a timed part (A6): what fires when its time comes.
use crate::coord::schedule::{CronSpec, Schedule, ScheduleEvent, ScheduleLifecycle, Target};
use crate::handoff::store::HandoffTx;

/// The schedules' timed part (A6): due entries run; a task fires once, a cron entry moves to
/// its next match (runs missed while no tick came are not replayed one by one).
pub(crate) const TIMED: crate::engine::timers::Timed = crate::engine::timers::Timed {
    name: "schedules",
    deadline: |st| st.active_schedules().filter_map(|s| s.next_run).min(),
    on_due: fire_schedules,
};

fn fire_schedules(tx: &mut crate::engine::tx::Tx<'_>) -> Result<(), crate::ground::error::CallError> {
    use crate::engine::log::Change;
    use crate::ground::machine::next;
    use crate::handoff::effect::Effect;
    let now = tx.now;
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
    Ok(())
}
