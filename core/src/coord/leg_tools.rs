//! `subagents` and `background_subagents` (rules A1–A5).
use crate::coord::leg::{
    kebab, Leg, LegGroup, LegStatus, BACKGROUND_EXCLUDED, EXCLUDED_TOOLS, FOREGROUND_CAP_MS, REASONING_LEVELS,
};
use crate::coord::store::{CoordState, CoordTx};
use crate::coord::wire::*;
use crate::ground::error::{CallError, ErrorCode};
use crate::ground::ids::IdKind;
use crate::ground::time::MINUTE;
use crate::handoff::ctx::{non_empty, Ctx};
use crate::handoff::store::HandoffState;
use crate::handoff::thread::Thread;
use std::sync::Arc;

struct Invoke {
    task: String,
    model: String,
    self_id: Option<String>,
    report_name: Option<String>,
    reasoning: Option<String>,
    system_prompt: Option<String>,
    exclude_tools: Vec<String>,
}

/// Resolves the model (A4): a registered name; `auto` is the dispatcher's pick; a session
/// pinned to its own model runs that one.
fn resolve_model<'a>(tx: &impl CoordTx<'a>, model: &str, self_id: Option<&str>) -> Result<String, CallError> {
    non_empty("model", "A4", model)?;
    let cfg = tx.st().config();
    if let Some(pinned) = self_id.and_then(|s| tx.st().leg_sessions().get(s)).and_then(|s| s.model.clone()) {
        return Ok(pinned);
    }
    let chosen = if model == "auto" {
        cfg.auto_model.clone().ok_or_else(|| {
            CallError::invalid(
                "model",
                "A4",
                "auto needs a dispatcher pick (configure auto_model); name a model instead",
            )
        })?
    } else {
        model.to_string()
    };
    if !cfg.models.contains(&chosen) {
        return Err(CallError::invalid(
            "model",
            "A4",
            format!("'{chosen}' is not a usable model; usable: {:?} (or auto)", cfg.models),
        ));
    }
    Ok(chosen)
}

fn start<'a>(
    tx: &mut impl CoordTx<'a>,
    ctx: &Ctx,
    inv: Invoke,
    background: Option<(u64, Option<String>, Option<String>)>,
) -> Result<SubagentsResult, CallError> {
    non_empty("task", "A1", &inv.task)?;
    let model = resolve_model(tx, &inv.model, inv.self_id.as_deref())?;
    let reasoning = inv.reasoning.unwrap_or_else(|| "auto".into());
    if !REASONING_LEVELS.contains(&reasoning.as_str()) {
        return Err(CallError::invalid(
            "reasoning",
            "A4",
            format!("'{reasoning}' is not a reasoning level; use one of {REASONING_LEVELS:?}"),
        ));
    }
    if let Some(s) = &inv.self_id {
        if !tx.st().leg_sessions().contains_key(s) {
            return Err(CallError::new(ErrorCode::NotFound, format!("self_id: no named session '{s}' (rule A1)"))
                .field("self_id")
                .rule("A1"));
        }
    }
    let report_name = match inv.report_name.as_deref().map(str::trim).filter(|n| !n.is_empty()) {
        Some(n) => Some(kebab(n).ok_or_else(|| {
            CallError::invalid("report_name", "A3", format!("'{n}' is not kebab-case (e.g. nvda-news)"))
        })?),
        None => None,
    };
    for (i, t) in inv.exclude_tools.iter().enumerate() {
        non_empty(&format!("exclude_tools[{i}]"), "A4", t)?;
    }
    let parent = Arc::clone(&ctx.thread);
    let (leg_id, seq) =
        tx.new_seq_id::<crate::ground::ids::LegId>(if background.is_some() { IdKind::Task } else { IdKind::Leg });
    let session_id =
        inv.self_id.clone().unwrap_or_else(|| format!("temp-{}", leg_id.split('_').next_back().unwrap_or("")));
    let (thread_id, tseq) = tx.new_seq_id::<crate::ground::ids::ThreadId>(IdKind::Thread);
    let mut excluded: Vec<String> = EXCLUDED_TOOLS.iter().map(|s| s.to_string()).collect();
    if background.is_some() {
        excluded.extend(BACKGROUND_EXCLUDED.iter().map(|s| s.to_string()));
    }
    excluded.extend(inv.exclude_tools);
    let now = tx.now();
    // The leg's own thread: none of the parent conversation, the excluded tools refused.
    let thread = Thread {
        owner: parent.owner.clone(),
        title: Some(format!("Subagent leg {leg_id}")),
        visibility: crate::handoff::thread::Visibility::Hidden,
        show_in_thread_list: false,
        parent_thread_id: Some(parent.thread_id.clone()),
        handoff_reason: Some("subagent_leg".into()),
        leg_id: Some(leg_id.clone()),
        excluded_tools: excluded.clone(),
        ..Thread::new(thread_id.clone(), parent.bot_id.clone(), tseq, now)
    };
    let mut group_id = None;
    if let Some((_, objective, next)) = &background {
        // A5: legs started in one turn of one task form a group.
        let task_id = parent.task_id.clone().unwrap_or_else(|| parent.thread_id.to_string());
        let turn = tx.activity(&parent.thread_id).turns_ended;
        let existing = tx
            .st()
            .leg_groups()
            .values()
            .find(|g| g.thread_id == parent.thread_id && g.task_id == task_id && g.turn == turn && !g.followed_up)
            .cloned();
        let mut g = match existing {
            Some(g) => g,
            None => LegGroup {
                group_id: tx.new_seq_id::<crate::ground::ids::GroupId>(IdKind::Group).0,
                thread_id: parent.thread_id.clone(),
                task_id,
                turn,
                legs: Vec::new(),
                objective: None,
                next: None,
                followed_up: false,
            },
        };
        g.legs.push(leg_id.clone());
        if objective.is_some() {
            g.objective = objective.clone();
        }
        if next.is_some() {
            g.next = next.clone();
        }
        group_id = Some(g.group_id.clone());
        tx.put_leg_group(g);
    }
    let leg = Leg {
        leg_id: leg_id.clone(),
        seq,
        session_id: session_id.clone(),
        parent_thread_id: parent.thread_id.clone(),
        bot_id: parent.bot_id.as_str().to_owned(),
        task: inv.task,
        model: model.clone(),
        reasoning,
        report_name,
        system_prompt: inv.system_prompt,
        excluded_tools: excluded,
        background: background.is_some(),
        group_id: group_id.clone(),
        timeout_ms: background.as_ref().map_or(FOREGROUND_CAP_MS, |b| b.0),
        status: LegStatus::Queued,
        queued_at: now,
        started_at: None,
        ended_at: None,
        usage: Default::default(),
        report_path: None,
        error: None,
    };
    tx.put_thread(thread);
    tx.put_leg(leg);
    crate::coord::legflow::fill_slots(tx);
    let status = tx.leg(&leg_id).map_or("queued", |l| l.status.as_str());
    let background = group_id.is_some();
    Ok(SubagentsResult {
        ok: true,
        session: None,
        leg_id: Some(leg_id.clone()),
        session_id: Some(session_id),
        thread_id: Some(thread_id),
        model: Some(model),
        status: Some(status.into()),
        task_id: background.then(|| leg_id.to_string()),
        group_id,
        note: background.then(|| {
            "Started in the background; the turn goes on. Reports come back to this task while it runs, else to a follow-up task."
                .into()
        }),
    })
}

pub(crate) fn subagents<'a>(
    tx: &mut impl CoordTx<'a>,
    ctx: &Ctx,
    a: SubagentsArgs,
) -> Result<SubagentsResult, CallError> {
    match a.mode {
        LegMode::List => {
            let id =
                a.self_id.as_deref().ok_or_else(|| CallError::invalid("self_id", "A1", "is required for mode=list"))?;
            let s = tx.st().leg_sessions().get(id).ok_or_else(|| {
                CallError::new(ErrorCode::NotFound, format!("self_id: no named session '{id}' (rule A1)"))
                    .field("self_id")
                    .rule("A1")
            })?;
            Ok(SubagentsResult {
                ok: true,
                session: Some(LegSessionOut {
                    self_id: s.session_id.clone(),
                    role: s.role.clone(),
                    model: s.model.clone(),
                }),
                leg_id: None,
                session_id: None,
                thread_id: None,
                model: None,
                status: None,
                task_id: None,
                group_id: None,
                note: None,
            })
        }
        LegMode::Invoke => {
            let task = a.task.ok_or_else(|| CallError::invalid("task", "A1", "is required for mode=invoke"))?;
            let model = a.model.ok_or_else(|| {
                CallError::invalid("model", "A4", "is required for mode=invoke (a model name or auto)")
            })?;
            let _ = a.new;
            start(
                tx,
                ctx,
                Invoke {
                    task,
                    model,
                    self_id: a.self_id,
                    report_name: a.report_name,
                    reasoning: a.reasoning,
                    system_prompt: a.system_prompt,
                    exclude_tools: a.exclude_tools.unwrap_or_default(),
                },
                None,
            )
        }
    }
}

pub(crate) fn background<'a>(
    tx: &mut impl CoordTx<'a>,
    ctx: &Ctx,
    a: BackgroundSubagentsArgs,
) -> Result<SubagentsResult, CallError> {
    let minutes = a.timeout_min.unwrap_or(60);
    if !(1..=60).contains(&minutes) {
        return Err(CallError::invalid("timeout_min", "A5", format!("{minutes} is out of range; use 1 to 60")));
    }
    let _ = a.new;
    start(
        tx,
        ctx,
        Invoke {
            task: a.task,
            model: a.model,
            self_id: a.self_id,
            report_name: a.report_name,
            reasoning: a.reasoning,
            system_prompt: a.system_prompt,
            exclude_tools: a.exclude_tools.unwrap_or_default(),
        },
        Some((minutes as u64 * MINUTE, a.objective, a.next)),
    )
}
