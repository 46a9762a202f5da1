//! What follows when a leg ends: report naming and storage, usage roll-up, the parent's
//! result, background group follow-ups, and the next queued leg starting (A2, A3, A5).
use crate::coord::leg::{leg_transition, Leg, LegEvent, LegStatus};
use crate::coord::store::{CoordState, CoordTx};
use crate::ground::ids::IdKind;
use crate::ground::ids::ThreadId;
use crate::handoff::effect::Effect;
use crate::handoff::store::HandoffState;

/// A free `temp-<name>.md` for a leg (A3): its kebab-case `report_name`; a taken name gets a
/// random suffix; no name gets a random one.
fn report_path<'a, T: CoordTx<'a>>(tx: &mut T, leg: &Leg) -> String {
    let taken = |tx: &T, p: &str| tx.st().leg_reports().contains_key(p) || tx.staged_report(p);
    let random = |tx: &mut T| {
        tx.new_seq_id::<String>(IdKind::Task).0.trim_start_matches("task_").chars().take(8).collect::<String>()
    };
    match &leg.report_name {
        Some(name) => {
            let path = format!("temp-{name}.md");
            if !taken(tx, &path) {
                return path;
            }
            loop {
                let p = format!("temp-{name}-{}.md", random(tx));
                if !taken(tx, &p) {
                    return p;
                }
            }
        }
        None => loop {
            let p = format!("temp-{}.md", random(tx));
            if !taken(tx, &p) {
                return p;
            }
        },
    }
}

/// Ends a leg with `event` (report, timeout or failure).
pub(crate) fn end_leg<'a>(
    tx: &mut impl CoordTx<'a>,
    mut leg: Leg,
    event: LegEvent,
    text: Option<String>,
) -> Option<Leg> {
    let to = leg_transition(leg.status, event)?;
    leg.status = to;
    leg.ended_at = Some(tx.now());
    let result = match event {
        LegEvent::Report => {
            let path = report_path(tx, &leg);
            tx.put_leg_report(path.clone(), text.unwrap_or_default());
            leg.report_path = Some(path.clone());
            format!("{}\n{path}", leg.header())
        }
        LegEvent::Timeout => format!(
            "{}\nThe leg ran past its {}-minute timeout (counted from when it was queued) and was stopped; no report.",
            leg.header(),
            leg.timeout_ms / crate::ground::time::MINUTE
        ),
        _ => {
            leg.error = text.clone();
            format!("{}\nThe leg failed: {}", leg.header(), text.unwrap_or_default())
        }
    };
    // A3: usage rolls up into the parent.
    let mut act = tx.activity(&leg.parent_thread_id);
    act.leg_usage.add(leg.usage);
    tx.put_activity(&leg.parent_thread_id, act);
    tx.put_leg(leg.clone());
    match leg.group_id.clone() {
        None => tx.emit(Effect::LegResult {
            leg_id: leg.leg_id.clone(),
            parent_thread_id: leg.parent_thread_id.clone(),
            status: leg.status.as_str().into(),
            result,
        }),
        Some(g) => group_leg_ended(tx, &g, &leg, result),
    }
    fill_slots(tx);
    Some(leg)
}

/// A5: while the starting task runs, a finished leg's report goes to it; once it has ended,
/// the group waits for all its legs and opens a follow-up task with every report.
fn group_leg_ended<'a>(tx: &mut impl CoordTx<'a>, group_id: &str, leg: &Leg, result: String) {
    let Some(mut g) = tx.st().leg_groups().get(group_id).cloned() else { return };
    let thread = tx.thread(&g.thread_id).cloned();
    let task_now = thread.as_ref().map(|t| t.task_id.clone().unwrap_or_else(|| t.thread_id.to_string()));
    let running = tx.activity(&g.thread_id).mid_turn && task_now.as_deref() == Some(g.task_id.as_str());
    if running {
        tx.emit(Effect::LegResult {
            leg_id: leg.leg_id.clone(),
            parent_thread_id: g.thread_id.clone(),
            status: leg.status.as_str().into(),
            result,
        });
        return;
    }
    let legs: Vec<Leg> = g.legs.iter().filter_map(|id| tx.leg(id)).collect();
    if g.followed_up || !legs.iter().all(|l| l.status.is_terminal()) {
        return;
    }
    let mut prompt = String::new();
    if let Some(o) = &g.objective {
        prompt.push_str(&format!("Objective: {o}\n"));
    }
    if let Some(n) = &g.next {
        prompt.push_str(&format!("Next: {n}\n"));
    }
    prompt.push_str("Reports of the background legs (read them before acting):\n");
    for l in &legs {
        let line = match &l.report_path {
            Some(p) => format!("- {} → {p}\n", l.header()),
            None => format!("- {} → no report ({})\n", l.header(), l.status.as_str()),
        };
        prompt.push_str(&line);
    }
    g.followed_up = true;
    let bot_id = tx.thread(&g.thread_id).map(|t| t.bot_id.as_str().to_owned()).unwrap_or_default();
    tx.emit(Effect::StartFollowUpTask {
        thread_id: g.thread_id.clone(),
        bot_id,
        group_id: g.group_id.clone(),
        after_task_id: g.task_id.clone(),
        prompt,
    });
    tx.put_leg_group(g);
}

/// The host input handlers for legs.
/// Adds `u` to a live leg's usage; answers the total (`None`: no such live leg).
pub(crate) fn usage<'a>(
    tx: &mut impl CoordTx<'a>,
    leg_id: &str,
    u: crate::handoff::usage::Usage,
) -> Option<crate::handoff::usage::Usage> {
    let mut leg = tx.leg(leg_id)?;
    if leg.status.is_terminal() {
        return None;
    }
    leg.usage.add(u);
    let total = leg.usage;
    tx.put_leg(leg);
    Some(total)
}

/// Whether a leg is past its timeout at `now` (queued time included, A2).
pub(crate) fn overdue(leg: &Leg, now: crate::ground::time::Timestamp) -> bool {
    !leg.status.is_terminal() && leg.queued_at.plus(leg.timeout_ms) <= now
}

/// The legs' timed part (A2, A5), by name (`surface::TIMED` lists it): legs past their
/// timeout (queued time included) end; queued ones take the freed slots.
pub(crate) const NAME: &str = "leg timeouts";

/// When the first live leg times out.
pub(crate) fn deadline(st: &impl CoordState) -> Option<crate::ground::time::Timestamp> {
    st.live_legs().map(|l| l.queued_at.plus(l.timeout_ms)).min()
}

/// Ends every leg past its timeout.
pub(crate) fn on_due<'a>(tx: &mut impl CoordTx<'a>) -> Result<(), crate::ground::error::CallError> {
    let due: Vec<Leg> = tx.st().live_legs().filter(|l| overdue(l, tx.now())).cloned().collect();
    for l in due {
        end_leg(tx, l, LegEvent::Timeout, None);
    }
    Ok(())
}

/// Starts queued legs, oldest first, while slots are free: max(3, cores / 2) foreground legs
/// at once, and as many background legs per session (A2, A5).
pub(crate) fn fill_slots<'a>(tx: &mut impl CoordTx<'a>) {
    let slots = tx.st().config().leg_slots();
    let live: Vec<Leg> = {
        let mut by_seq: std::collections::BTreeMap<u64, Leg> =
            tx.st().live_legs().map(|l| (l.seq, l.clone())).collect();
        for l in tx.staged_legs() {
            if l.status.is_terminal() {
                by_seq.remove(&l.seq);
            } else {
                by_seq.insert(l.seq, l);
            }
        }
        by_seq.into_values().collect()
    };
    let mut fg = live.iter().filter(|l| !l.background && l.status == LegStatus::Running).count();
    let mut bg: std::collections::BTreeMap<ThreadId, usize> = Default::default();
    for l in live.iter().filter(|l| l.background && l.status == LegStatus::Running) {
        *bg.entry(l.parent_thread_id.clone()).or_default() += 1;
    }
    for mut l in live.into_iter().filter(|l| l.status == LegStatus::Queued) {
        let free = if l.background { bg.get(&l.parent_thread_id).copied().unwrap_or(0) < slots } else { fg < slots };
        if !free {
            continue;
        }
        if let Some(to) = leg_transition(l.status, LegEvent::Start) {
            l.status = to;
            l.started_at = Some(tx.now());
            if l.background {
                *bg.entry(l.parent_thread_id.clone()).or_default() += 1;
            } else {
                fg += 1;
            }
            let thread_id = tx
                .st()
                .thread_of_leg(&l.leg_id)
                .cloned()
                .or_else(|| tx.staged_leg_thread(&l.leg_id))
                .unwrap_or_default();
            tx.emit(Effect::StartLeg {
                leg_id: l.leg_id.clone(),
                session_id: l.session_id.clone(),
                thread_id,
                parent_thread_id: l.parent_thread_id.clone(),
                model: l.model.clone(),
                reasoning: l.reasoning.clone(),
                task: l.task.clone(),
                system_prompt: l.system_prompt.clone(),
                background: l.background,
            });
            tx.put_leg(l);
        }
    }
}
