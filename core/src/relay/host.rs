//! Host inputs of the relay: teammates, trust policies, the sibling audit log.
use crate::ground::error::{CallError, ErrorCode};
use crate::handoff::ctx::non_empty;
use crate::handoff::store::HandoffState;
use crate::relay::store::{RelayState, RelayTx};
use crate::relay::Teammate;
use serde::{Deserialize, Serialize};

/// `register_teammate`'s answer.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TeammateRegistered {
    /// Always true.
    pub ok: bool,
    /// The teammate.
    pub handle: String,
}

pub(crate) fn register_teammate<'a>(tx: &mut impl RelayTx<'a>, t: Teammate) -> Result<TeammateRegistered, CallError> {
    let valid = t.handle.split_once('@').is_some_and(|(n, o)| !n.is_empty() && !o.is_empty() && !o.contains('@'));
    if !valid || t.handle.chars().any(char::is_whitespace) {
        return Err(CallError::invalid("handle", "I2", format!("'{}' is not a handle like bob@acme", t.handle)));
    }
    non_empty("name", "I2", &t.name)?;
    non_empty("role", "I2", &t.role)?;
    if let Some(b) = &t.bot_id {
        if !tx.st().agents().contains_key(b) {
            return Err(CallError::new(ErrorCode::NotFound, format!("bot_id: no agent '{b}'")).field("bot_id"));
        }
    }
    let handle = t.handle.clone();
    tx.put_teammate(t);
    Ok(TeammateRegistered { ok: true, handle })
}

/// `load_trust`'s answer.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TrustLoaded {
    /// Always true.
    pub ok: bool,
    /// The recipient.
    pub handle: String,
    /// How many senders the policy names.
    pub senders: usize,
}

pub(crate) fn load_trust<'a>(tx: &mut impl RelayTx<'a>, a: LoadTrust) -> Result<TrustLoaded, CallError> {
    if !tx.st().teammates().contains_key(&a.handle) {
        return Err(CallError::new(ErrorCode::NotFound, format!("handle: no teammate '{}'", a.handle)).field("handle"));
    }
    let policy = crate::relay::trust::parse(&a.yaml).map_err(|e| CallError::invalid("yaml", "I3", e))?;
    let senders = policy.senders.len();
    tx.put_trust(a.handle.clone(), policy);
    Ok(TrustLoaded { ok: true, handle: a.handle, senders })
}

/// `load_trust`: a recipient's `trust.yaml`.
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct LoadTrust {
    /// Recipient handle the policy belongs to.
    pub handle: String,
    /// The YAML text.
    pub yaml: String,
}

/// `audit_log`'s answer (X5).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct AuditLog {
    /// Entries, oldest first.
    pub entries: Vec<AuditEntryOut>,
}

/// One audit entry: a sibling session released or timed out.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct AuditEntryOut {
    /// When (ISO 8601).
    pub at: String,
    /// The session.
    pub session_id: crate::ground::ids::SessionId,
    /// Who acted (bot id, or `baton` for a timeout).
    pub actor: String,
    /// `released` or `timed_out`.
    pub action: String,
    /// How it ended.
    pub outcome: Option<crate::sibling::Outcome>,
    /// Summary, as given.
    pub summary: Option<String>,
    /// Reason, as given.
    pub reason: Option<String>,
}

pub(crate) fn audit_log<'a>(tx: &mut impl RelayTx<'a>, a: AuditQuery) -> Result<AuditLog, CallError> {
    let entries = tx
        .st()
        .audit()
        .iter()
        .filter(|e| a.session_id.as_ref().is_none_or(|s| s == &e.session_id))
        .map(|e| AuditEntryOut {
            at: e.at.to_iso(),
            session_id: e.session_id.clone(),
            actor: e.actor.clone(),
            action: e.action.clone(),
            outcome: e.outcome,
            summary: e.summary.clone(),
            reason: e.reason.clone(),
        })
        .collect();
    Ok(AuditLog { entries })
}

/// `audit_log`: which entries.
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct AuditQuery {
    /// Only this sibling session's entries.
    #[serde(default)]
    pub session_id: Option<String>,
}
