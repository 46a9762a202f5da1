//! The caller a tool call names, checked (X1, X5, G13): the thread and bot of a thread tool,
//! the teammate of a relay tool — shared by the JSON and the typed entry points.
use crate::engine::state::State;
use crate::engine::tx::Tx;
use crate::engine::Caller;
use crate::ground::error::{CallError, ErrorCode};
use crate::handoff::thread::Thread;
use std::sync::Arc;

/// A tool's caller checked against the state (X1, X5, G13): the calling thread, if one was
/// named. Nothing is staged yet, so the records are read straight from the state.
fn caller_thread<'s>(
    st: &'s State,
    tool: &str,
    exists_for: Option<ExistsFor>,
    caller: &Caller,
) -> Result<Option<&'s Arc<Thread>>, CallError> {
    Ok(match &caller.thread {
        Some(id) => {
            let thread = st.threads.get(id).filter(|t| t.deleted_at.is_none()).ok_or_else(|| {
                CallError::new(ErrorCode::NotFound, format!("caller.thread: no thread '{id}'")).field("caller.thread")
            })?;
            if let Some(bot) = &caller.bot {
                if *bot != thread.bot_id {
                    return Err(CallError::new(
                        ErrorCode::Forbidden,
                        format!(
                            "caller.bot: thread '{}' belongs to bot '{}', not '{bot}'",
                            thread.thread_id, thread.bot_id
                        ),
                    )
                    .field("caller.bot"));
                }
            }
            let agent = st.agents.get(thread.bot_id.as_str()).ok_or_else(|| {
                CallError::new(ErrorCode::NotFound, format!("caller.bot: no agent '{}'", thread.bot_id))
                    .field("caller.bot")
            })?;
            // X1: a tool that does not exist for this thread is unknown, not refused.
            if exists_for.is_some_and(|exists| !exists(st, thread)) {
                return Err(CallError::new(
                    ErrorCode::UnknownTool,
                    format!("`{tool}` does not exist here: this thread is not the receiving side of a sibling handoff"),
                )
                .rule("X1"));
            }
            // X5: a bypassed originator does not act until the sibling releases.
            if let Some(s) = &thread.bypassed_by {
                return Err(crate::handoff::ctx::bypassed(s, &thread.thread_id));
            }
            // G13: the calling thread may use only its tools; refused calls do not run.
            crate::handoff::dispatch::check(agent, thread, tool)?;
            Some(thread)
        }
        None => None,
    })
}

/// The caller of a thread tool: its thread and bot (shared by the JSON and typed entry points).
pub(crate) fn thread_caller(
    tx: &Tx<'_>,
    tool: &str,
    exists_for: Option<ExistsFor>,
    caller: &Caller,
) -> Result<crate::handoff::ctx::Ctx, CallError> {
    let thread = caller_thread(tx.st, tool, exists_for, caller)?;
    let thread = thread.ok_or_else(|| {
        CallError::new(ErrorCode::InvalidParams, format!("caller.thread: `{tool}` is called from a thread"))
            .field("caller.thread")
    })?;
    let ctx = crate::handoff::ctx::Ctx {
        thread_id: thread.thread_id.clone(),
        bot_id: thread.bot_id.clone(),
        agent_context: caller.bot.is_some(),
        thread: Arc::clone(thread),
    };
    Ok(ctx)
}

/// The caller of a relay tool: the teammate it acts as (by handle, or the calling bot's).
pub(crate) fn relay_caller(
    tx: &Tx<'_>,
    tool: &str,
    caller: &Caller,
) -> Result<crate::handoff::ctx::RelayCtx, CallError> {
    let st = tx.st;
    let thread = caller_thread(st, tool, None, caller)?;
    let bot = caller.bot.as_deref().or(thread.map(|t| t.bot_id.as_str()));
    let handle = match (&caller.handle, bot) {
        (Some(h), _) => st.teammates.get(h).map(|t| t.handle.clone()).ok_or_else(|| {
            CallError::new(ErrorCode::NotFound, format!("caller.handle: no teammate '{h}'")).field("caller.handle")
        })?,
        (None, Some(b)) => st.teammate_of_bot(b).map(str::to_string).ok_or_else(|| {
            CallError::new(
                ErrorCode::InvalidParams,
                format!("caller.handle: bot '{b}' acts as no teammate; pass a handle"),
            )
            .field("caller.handle")
        })?,
        (None, None) => {
            return Err(CallError::new(
                ErrorCode::InvalidParams,
                format!("caller.handle: `{tool}` acts as a teammate; pass a handle"),
            )
            .field("caller.handle"))
        }
    };
    Ok(crate::handoff::ctx::RelayCtx { handle })
}

/// Where a tool exists at all (X1).
pub(crate) type ExistsFor = fn(&State, &Thread) -> bool;
