//! Coordination (rules A1–A8): subagent legs and their groups, schedules, checklists and
//! questions to the user — records, lifecycles, tools and host inputs.
pub(crate) mod ask;
pub(crate) mod host;
pub(crate) mod leg;
pub(crate) mod leg_tools;
pub(crate) mod legflow;
pub(crate) mod schedule;
pub(crate) mod schedule_runs;
pub(crate) mod store;
pub(crate) mod todo;
pub(crate) mod tools;
pub(crate) mod wire;
