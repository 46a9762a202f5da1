//! `write_todo` checklists (rule A7): the whole ordered list is resent each time; one step is
//! in progress; while a plan runs its steps are fixed and statuses only move forward.
use serde::{Deserialize, Serialize};

/// A step's status.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum StepStatus {
    /// Not started.
    Pending,
    /// Being worked on (exactly one while the plan runs).
    InProgress,
    /// Done.
    Completed,
}

impl StepStatus {
    /// Wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            StepStatus::Pending => "pending",
            StepStatus::InProgress => "in_progress",
            StepStatus::Completed => "completed",
        }
    }
}

/// One step.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// What the step does.
    #[cfg_attr(feature = "schema", schemars(length(min = 1), pattern(crate::ground::limits::NON_BLANK)))]
    pub title: String,
    /// Its status.
    pub status: StepStatus,
}

/// The checklist of one task.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TodoPlan {
    /// Task key.
    pub task_id: String,
    /// Steps, in order.
    pub steps: Vec<Step>,
}

impl TodoPlan {
    /// Every step is completed.
    pub fn finished(&self) -> bool {
        self.steps.iter().all(|s| s.status == StepStatus::Completed)
    }
}

/// Checks a new list against the running plan, if any. `Err((field, message))`.
pub(crate) fn check(old: Option<&TodoPlan>, new: &[Step]) -> Result<(), (String, String)> {
    if new.is_empty() {
        return Err(("steps".into(), "send the whole ordered list; it is empty".into()));
    }
    for (i, s) in new.iter().enumerate() {
        if s.title.trim().is_empty() {
            return Err((format!("steps[{i}].title"), "must not be empty".into()));
        }
        if new[..i].iter().any(|o| o.title == s.title) {
            return Err((format!("steps[{i}].title"), format!("'{}' appears twice", s.title)));
        }
    }
    let running = new.iter().filter(|s| s.status == StepStatus::InProgress).count();
    let all_done = new.iter().all(|s| s.status == StepStatus::Completed);
    if !all_done && running != 1 {
        return Err(("steps".into(), format!("exactly one step is in_progress while the plan runs; {running} are")));
    }
    if let Some(old) = old.filter(|o| !o.finished()) {
        let same = old.steps.len() == new.len() && old.steps.iter().zip(new).all(|(a, b)| a.title == b.title);
        if !same {
            let titles: Vec<&str> = old.steps.iter().map(|s| s.title.as_str()).collect();
            return Err((
                "steps".into(),
                format!("while a plan runs its steps are fixed ({titles:?}); only statuses move"),
            ));
        }
        if let Some((i, (a, b))) = old.steps.iter().zip(new).enumerate().find(|(_, (a, b))| b.status < a.status) {
            return Err((
                format!("steps[{i}].status"),
                // The title as the caller wrote it; only the statuses are Baton's words.
                format!("'{}' cannot go back from {} to {}", b.title, a.status.as_str(), b.status.as_str()),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn a_step_statuss_wire_name_is_its_serde_name() {
        for s in [StepStatus::Pending, StepStatus::InProgress, StepStatus::Completed] {
            assert_eq!(serde_json::to_value(s).unwrap(), s.as_str());
        }
    }
}
