//! `schedules`, `write_todo`, `ask_user` (rules A6, A7, A8).
use crate::coord::ask::{asks_for_credential, Ask, AskStatus};
use crate::coord::schedule::{
    parse_time, CronSpec, Schedule, ScheduleEvent, ScheduleLifecycle, ScheduleStatus, Skill, Target,
};
use crate::coord::store::{CoordState, CoordTx};
use crate::coord::todo::{check, StepStatus, TodoPlan};
use crate::coord::wire::*;
use crate::ground::error::{CallError, ErrorCode};
use crate::ground::ids::IdKind;
use crate::ground::time::Timestamp;
use crate::handoff::ctx::{non_empty, Ctx};
use crate::handoff::effect::Effect;
use crate::handoff::question::QuestionKind;
use crate::handoff::store::HandoffState;

fn schedule_view(s: &Schedule, utc_offset_minutes: i32) -> ScheduleOut {
    let local = |t: Timestamp| {
        chrono::DateTime::from_timestamp_millis(t.0 as i64)
            .and_then(|d| chrono::FixedOffset::east_opt(utc_offset_minutes * 60).map(|o| d.with_timezone(&o)))
            .map(|d| crate::ground::time::forms::date_clock_offset(&d))
    };
    ScheduleOut {
        schedule_id: s.schedule_id.clone(),
        target: s.target.as_str().into(),
        skill_name: s.skill_name.clone(),
        time: s.time.clone(),
        cron: s.cron.clone(),
        next_run: s.next_run.map(Timestamp::to_iso),
        next_run_local: s.next_run.and_then(local),
        runs: s.runs,
        status: s.status.as_str().into(),
    }
}

/// The answer about one entry (write, patch, remove).
fn one_schedule(s: &Schedule, off: i32, skill_trashed: Option<String>) -> SchedulesResult {
    SchedulesResult { ok: true, count: None, schedules: None, schedule: Some(schedule_view(s, off)), skill_trashed }
}

fn when<'a>(
    tx: &impl CoordTx<'a>,
    target: Target,
    time: &Option<String>,
    cron: &Option<String>,
) -> Result<Option<Timestamp>, CallError> {
    let off = tx.st().config().utc_offset_minutes;
    match target {
        Target::Task => {
            let t = time.as_deref().ok_or_else(|| CallError::invalid("time", "A6", "is required for target task"))?;
            if cron.is_some() {
                return Err(CallError::invalid("cron", "A6", "is only for target cron"));
            }
            parse_time(t, tx.now(), off).map(Some).map_err(|e| CallError::invalid("time", "A6", e))
        }
        Target::Cron => {
            let c = cron.as_deref().ok_or_else(|| CallError::invalid("cron", "A6", "is required for target cron"))?;
            if time.is_some() {
                return Err(CallError::invalid("time", "A6", "is only for target task"));
            }
            let spec = CronSpec::parse(c).map_err(|e| CallError::invalid("cron", "A6", e))?;
            match spec.next_after(tx.now(), off) {
                Some(t) => Ok(Some(t)),
                None => Err(CallError::invalid("cron", "A6", format!("'{c}' never matches"))),
            }
        }
        Target::All => Err(CallError::invalid("target", "A6", "all is for list only; write task or cron")),
    }
}

/// The caller's schedule `id`, with the status `event` moves it to (A6).
fn own_schedule<'a>(
    tx: &impl CoordTx<'a>,
    ctx: &Ctx,
    id: &Option<crate::ground::ids::ScheduleId>,
    event: ScheduleEvent,
) -> Result<(Schedule, ScheduleStatus), CallError> {
    let id =
        id.as_deref().ok_or_else(|| CallError::invalid("schedule_id", "A6", "is required for patch and remove"))?;
    let s = tx.st().schedules().get(id).filter(|s| s.thread_id == ctx.thread_id).ok_or_else(|| {
        CallError::new(ErrorCode::NotFound, format!("schedule_id: this session has no schedule '{id}' (rule A6)"))
            .field("schedule_id")
            .rule("A6")
    })?;
    let to = crate::ground::machine::next::<ScheduleLifecycle>(s.status, event).map_err(|e| e.field("schedule_id"))?;
    Ok(((**s).clone(), to))
}

pub(crate) fn schedules<'a>(
    tx: &mut impl CoordTx<'a>,
    ctx: &Ctx,
    a: SchedulesArgs,
) -> Result<SchedulesResult, CallError> {
    let off = tx.st().config().utc_offset_minutes;
    match a.mode {
        ScheduleMode::List => {
            let target = a.target.unwrap_or(Target::All);
            let items: Vec<ScheduleOut> = tx
                .st()
                .active_schedules()
                .filter(|s| s.thread_id == ctx.thread_id && (target == Target::All || s.target == target))
                .map(|s| schedule_view(s, off))
                .collect();
            Ok(SchedulesResult {
                ok: true,
                count: Some(items.len()),
                schedules: Some(items),
                schedule: None,
                skill_trashed: None,
            })
        }
        ScheduleMode::Write => {
            let target =
                a.target.ok_or_else(|| CallError::invalid("target", "A6", "is required for write (task or cron)"))?;
            let name = a
                .skill_name
                .as_deref()
                .ok_or_else(|| CallError::invalid("skill_name", "A6", "is required for write"))?;
            // A6: only names Baton generated (with their hash suffix) bind; hand-made ones fail.
            match tx.st().skills().get(name) {
                Some(k) if !k.trashed => {}
                _ => {
                    return Err(CallError::invalid(
                        "skill_name",
                        "A6",
                        format!("'{name}' is not a generated scheduler skill; create one (its name carries a hash suffix) and pass that name"),
                    ))
                }
            }
            let next = when(tx, target, &a.time, &a.cron)?;
            let (schedule_id, _) = tx.new_seq_id::<crate::ground::ids::ScheduleId>(IdKind::Schedule);
            let s = Schedule {
                schedule_id,
                thread_id: ctx.thread_id.clone(),
                bot_id: ctx.bot_id.as_str().to_owned(),
                skill_name: name.to_string(),
                target,
                time: a.time,
                cron: a.cron,
                next_run: next,
                runs: 0,
                last_run: None,
                status: ScheduleStatus::Active,
                created_at: tx.now(),
            };
            let out = one_schedule(&s, off, None);
            tx.put_schedule(s);
            Ok(out)
        }
        ScheduleMode::Patch => {
            let (mut s, _) = own_schedule(tx, ctx, &a.schedule_id, ScheduleEvent::Patch)?;
            if a.target.is_some_and(|t| t != s.target) {
                return Err(CallError::invalid("target", "A6", "a patch keeps the entry's target"));
            }
            s.next_run = when(tx, s.target, &a.time, &a.cron)?;
            if s.target == Target::Task {
                s.time = a.time;
            } else {
                s.cron = a.cron;
            }
            let out = one_schedule(&s, off, None);
            tx.put_schedule(s);
            Ok(out)
        }
        ScheduleMode::Remove => {
            let (mut s, to) = own_schedule(tx, ctx, &a.schedule_id, ScheduleEvent::Remove)?;
            s.status = to;
            s.next_run = None;
            tx.put_skill(Skill { name: s.skill_name.clone(), trashed: true });
            let out = one_schedule(&s, off, Some(s.skill_name.clone()));
            tx.put_schedule(s);
            Ok(out)
        }
    }
}

/// The task a thread's checklist belongs to: its current task, else the thread itself.
fn task_of<'a>(tx: &impl CoordTx<'a>, thread_id: &str) -> String {
    tx.thread(thread_id).and_then(|t| t.task_id.clone()).unwrap_or_else(|| thread_id.to_string())
}

pub(crate) fn write_todo<'a>(
    tx: &mut impl CoordTx<'a>,
    ctx: &Ctx,
    a: WriteTodoArgs,
) -> Result<WriteTodoResult, CallError> {
    let task_id = task_of(tx, &ctx.thread_id);
    let old = tx.st().todos().get(&task_id);
    check(old, &a.steps).map_err(|(field, msg)| CallError::invalid(&field, "A7", msg))?;
    let plan = TodoPlan { task_id: task_id.clone(), steps: a.steps };
    let done = plan.steps.iter().filter(|s| s.status == StepStatus::Completed).count();
    let note = plan.finished().then(|| {
        let reported = tx.st().reports().get(&task_id).is_some_and(|r| !r.is_empty());
        if reported {
            "All steps are completed; the report for this task is written."
        } else {
            "All steps are completed, and no report-*.md or report-*.html was written in this task: call write_result for a long-form deliverable."
        }
        .to_string()
    });
    let out = WriteTodoResult {
        ok: true,
        task_id,
        steps: plan.steps.clone(),
        completed: done,
        total: plan.steps.len(),
        in_progress: plan.steps.iter().find(|s| s.status == StepStatus::InProgress).map(|s| s.title.clone()),
        note,
    };
    tx.put_todo(plan);
    Ok(out)
}

pub(crate) fn ask_user<'a>(tx: &mut impl CoordTx<'a>, ctx: &Ctx, a: AskUserArgs) -> Result<AskUserResult, CallError> {
    if a.questions.is_empty() || a.questions.len() > 10 {
        return Err(CallError::invalid("questions", "A8", format!("ask 1 to 10 questions, not {}", a.questions.len())));
    }
    for (i, q) in a.questions.iter().enumerate() {
        non_empty(&format!("questions[{i}].question"), "A8", &q.question)?;
        if asks_for_credential(q) {
            return Err(CallError::invalid(
                &format!("questions[{i}].question"),
                "A8",
                "asks for a credential; credentials are never asked for here — have the user store it with store_secret",
            ));
        }
        let selects = matches!(q.kind, QuestionKind::SingleSelect | QuestionKind::MultiSelect);
        match (&q.options, selects) {
            (Some(o), true) => {
                if o.len() < 2 {
                    return Err(CallError::invalid(
                        &format!("questions[{i}].options"),
                        "A8",
                        "a select needs at least two options",
                    ));
                }
                if let Some(j) = (1..o.len()).find(|j| o[..*j].contains(&o[*j])) {
                    return Err(CallError::invalid(
                        &format!("questions[{i}].options[{j}]"),
                        "A8",
                        format!("'{}' appears twice", o[j]),
                    ));
                }
            }
            (None, true) => {
                return Err(CallError::invalid(&format!("questions[{i}].options"), "A8", "a select needs options"))
            }
            (Some(_), false) => {
                return Err(CallError::invalid(
                    &format!("questions[{i}].options"),
                    "A8",
                    "only the select kinds take options",
                ))
            }
            (None, false) => {}
        }
    }
    let thread = (*ctx.thread).clone();
    let (question_id, _) = tx.new_seq_id::<crate::ground::ids::QuestionId>(IdKind::Question);
    let snapshot = (!thread.interactive)
        .then(|| tx.st().turn_calls().get(&ctx.thread_id).map(|c| c.0.clone()).unwrap_or_default());
    let ask = Ask {
        question_id: question_id.clone(),
        thread_id: ctx.thread_id.clone(),
        questions: a.questions.clone(),
        snapshot: snapshot.clone(),
        status: AskStatus::Pending,
        asked_at: tx.now(),
        answered_at: None,
        answers: None,
    };
    let out = if thread.interactive {
        tx.emit(Effect::AskInline {
            question_id: question_id.clone(),
            thread_id: ctx.thread_id.clone(),
            questions: a.questions,
        });
        AskUserResult {
            ok: true,
            question_id: question_id.clone(),
            status: "asked_inline".into(),
            snapshot_calls: None,
            note: "The question is shown in place; the run continues with the answer.".into(),
        }
    } else {
        tx.emit(Effect::EndRun {
            thread_id: ctx.thread_id.clone(),
            question_id: question_id.clone(),
            questions: a.questions,
        });
        AskUserResult {
            ok: true,
            question_id: question_id.clone(),
            status: "pending".into(),
            snapshot_calls: Some(snapshot.map_or(0, |s| s.len())),
            note: "The run ends now and resumes with full context once the user answers. There is no timeout.".into(),
        }
    };
    tx.put_ask(ask);
    Ok(out)
}
