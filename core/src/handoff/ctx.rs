//! What a handler receives besides the transaction: the caller, resolved, and the checks
//! every capability shares.
use crate::ground::error::{CallError, ErrorCode};
use crate::handoff::store::HandoffTx;
use crate::handoff::thread::Thread;
use serde::Deserialize;

/// Who is calling, resolved against the state.
pub(crate) struct Ctx {
    /// Calling thread.
    pub thread_id: crate::ground::ids::ThreadId,
    /// The thread's bot.
    pub bot_id: crate::ground::ids::BotId,
    /// The call carried a bot id (agent context, rule B1).
    pub agent_context: bool,
    /// The calling thread's record, as resolved (handlers read it here, not again).
    pub thread: std::sync::Arc<Thread>,
}

/// A relay caller: the teammate the call acts as.
pub(crate) struct RelayCtx {
    /// Teammate handle.
    pub handle: String,
}

/// A non-empty (after trimming) string, or an `invalid_params` error naming the field.
pub(crate) fn non_empty(field: &str, rule: &'static str, s: &str) -> Result<(), CallError> {
    if s.trim().is_empty() {
        return Err(CallError::invalid(field, rule, "must not be empty"));
    }
    Ok(())
}

pub(crate) fn no_thread(id: &str) -> CallError {
    CallError::new(ErrorCode::NotFound, format!("thread_id: no thread '{id}'")).field("thread_id")
}

/// A thread that exists and is not deleted (shared; callers that change it copy it).
pub(crate) fn live_thread<'a>(tx: &impl HandoffTx<'a>, id: &str) -> Result<std::sync::Arc<Thread>, CallError> {
    tx.thread_arc(id).filter(|t| t.deleted_at.is_none()).ok_or_else(|| no_thread(id))
}

/// Inputs that name one thread.
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ThreadRef {
    /// Thread id.
    pub thread_id: crate::ground::ids::ThreadId,
}

/// Inputs that name one bot.
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct BotRef {
    /// Bot id.
    pub bot_id: String,
}

/// The refusal for a bypassed originator thread (X5).
pub(crate) fn bypassed(session: &str, thread_id: &str) -> CallError {
    CallError::new(
        ErrorCode::InvalidTransition,
        format!("thread '{thread_id}' is bypassed: sibling session {session} holds control until handoff_release"),
    )
    .rule("X5")
    .data(serde_json::json!({"session_id": session}))
}
