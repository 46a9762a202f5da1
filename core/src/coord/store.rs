//! What the coordination capability (schedules, checklists, questions, legs) reads and stages
//! through, beyond what the handoff capability does: `CoordState` and `CoordTx`, implemented
//! by the engine's assembly above it.
use crate::coord::ask::Ask;
use crate::coord::leg::{Leg, LegGroup, LegSession};
use crate::coord::schedule::{Schedule, Skill};
use crate::coord::todo::TodoPlan;
use crate::ground::ids::{GroupId, QuestionId, ScheduleId, ThreadId};
use crate::handoff::store::{HandoffState, HandoffTx};
use std::collections::BTreeMap;
use std::sync::Arc;

/// The committed workspace, as the coordination capability reads it.
pub(crate) trait CoordState: HandoffState {
    /// Schedules by id.
    fn schedules(&self) -> &BTreeMap<ScheduleId, Arc<Schedule>>;
    /// Scheduler skills by name.
    fn skills(&self) -> &BTreeMap<String, Skill>;
    /// Checklists by task.
    fn todos(&self) -> &BTreeMap<String, TodoPlan>;
    /// Report files written per task.
    fn reports(&self) -> &BTreeMap<String, Vec<String>>;
    /// Questions to the user by id.
    fn asks(&self) -> &BTreeMap<QuestionId, Arc<Ask>>;
    /// Named leg sessions by id.
    fn leg_sessions(&self) -> &BTreeMap<String, LegSession>;
    /// Background groups by id.
    fn leg_groups(&self) -> &BTreeMap<GroupId, LegGroup>;
    /// Stored leg reports by path.
    fn leg_reports(&self) -> &BTreeMap<String, String>;
    /// Legs not yet terminal, in queue order.
    fn live_legs(&self) -> impl Iterator<Item = &Leg>;
    /// A leg's thread.
    fn thread_of_leg(&self, leg_id: &str) -> Option<&ThreadId>;
    /// Active schedules.
    fn active_schedules(&self) -> impl Iterator<Item = &Schedule>;
}

/// One command in flight, as the coordination capability reads and stages through it.
pub(crate) trait CoordTx<'a>: HandoffTx<'a, St: CoordState> {
    /// Stages a schedule.
    fn put_schedule(&mut self, s: Schedule);
    /// Stages a scheduler skill.
    fn put_skill(&mut self, s: Skill);
    /// Stages a task's checklist.
    fn put_todo(&mut self, plan: TodoPlan);
    /// Stages a report file written in a task (A7).
    fn put_report(&mut self, task_id: String, path: String);
    /// Stages a question to the user.
    fn put_ask(&mut self, ask: Ask);
    /// Stages a named leg session.
    fn put_leg_session(&mut self, s: LegSession);
    /// Stages a background group.
    fn put_leg_group(&mut self, g: LegGroup);
    /// Stages a leg.
    fn put_leg(&mut self, leg: Leg);
    /// Stages a leg's report at `path`.
    fn put_leg_report(&mut self, path: String, text: String);
    /// A leg as this command sees it.
    fn leg(&self, id: &str) -> Option<Leg>;
    /// Legs staged by this command (latest version of each).
    fn staged_legs(&self) -> Vec<Leg>;
    /// Whether this command already stored a report at `path`.
    fn staged_report(&self, path: &str) -> bool;
    /// The thread of a leg staged by this command.
    fn staged_leg_thread(&self, leg_id: &str) -> Option<ThreadId>;
}
