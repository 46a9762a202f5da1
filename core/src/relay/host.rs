//! Host inputs of the relay: teammates, trust policies, the sibling audit log.
use crate::engine::ctx::non_empty;
use crate::engine::error::{CallError, ErrorCode};
use crate::engine::log::Change;
use crate::engine::tx::Tx;
use crate::relay::Teammate;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};

pub(crate) fn register_teammate(tx: &mut Tx<'_>, t: Teammate) -> Result<Value, CallError> {
    let valid = t.handle.split_once('@').is_some_and(|(n, o)| !n.is_empty() && !o.is_empty() && !o.contains('@'));
    if !valid || t.handle.chars().any(char::is_whitespace) {
        return Err(CallError::invalid("handle", "I2", format!("'{}' is not a handle like bob@acme", t.handle)));
    }
    non_empty("name", "I2", &t.name)?;
    non_empty("role", "I2", &t.role)?;
    if let Some(b) = &t.bot_id {
        if !tx.st.agents.contains_key(b) {
            return Err(CallError::new(ErrorCode::NotFound, format!("bot_id: no agent '{b}'")).field("bot_id"));
        }
    }
    let handle = t.handle.clone();
    tx.put(Change::Teammate(t));
    Ok(json!({"ok": true, "handle": handle}))
}

pub(crate) fn load_trust(tx: &mut Tx<'_>, a: LoadTrust) -> Result<Value, CallError> {
    if !tx.st.teammates.contains_key(&a.handle) {
        return Err(CallError::new(ErrorCode::NotFound, format!("handle: no teammate '{}'", a.handle)).field("handle"));
    }
    let policy = crate::relay::trust::parse(&a.yaml).map_err(|e| CallError::invalid("yaml", "I3", e))?;
    let senders = policy.senders.len();
    tx.put(Change::Trust { handle: a.handle.clone(), policy });
    Ok(json!({"ok": true, "handle": a.handle, "senders": senders}))
}

/// `load_trust`: a recipient's `trust.yaml`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LoadTrust {
    /// Recipient handle the policy belongs to.
    pub handle: String,
    /// The YAML text.
    pub yaml: String,
}

pub(crate) fn audit_log(tx: &mut Tx<'_>, a: AuditQuery) -> Result<Value, CallError> {
    let entries: Vec<Value> = tx
        .st
        .audit
        .iter()
        .filter(|e| a.session_id.as_ref().is_none_or(|s| s == &e.session_id))
        .map(|e| {
            json!({"at": e.at.to_iso(), "session_id": e.session_id, "actor": e.actor, "action": e.action,
                   "outcome": e.outcome, "summary": e.summary, "reason": e.reason})
        })
        .collect();
    Ok(json!({"entries": entries}))
}

/// `audit_log`: which entries.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AuditQuery {
    /// Only this sibling session's entries.
    #[serde(default)]
    pub session_id: Option<String>,
}
