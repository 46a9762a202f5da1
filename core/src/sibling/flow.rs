//! What ends a sibling session, whoever ends it (a release, or the idle timeout): the
//! originator's thread stops being bypassed and hears how it went.
use crate::ground::error::CallError;
use crate::ground::time::{Timestamp, MINUTE};
use crate::handoff::effect::Effect;
use crate::sibling::store::{SiblingState, SiblingTx};
use crate::sibling::{session_transition, AuditEntry, SessionEvent, SiblingSession};

/// Hands control back to the originator: its thread stops being bypassed, and it receives
/// `text` as a system message.
pub(crate) fn resume_originator<'a>(tx: &mut impl SiblingTx<'a>, session: &SiblingSession, text: String) {
    if let Some(t) = tx.thread(&session.originator_thread) {
        let mut t = t.clone();
        t.bypassed_by = None;
        tx.put_thread(t);
    }
    tx.emit(Effect::SystemMessage { thread_id: session.originator_thread.clone(), text });
}

/// The sibling session's timed part, by name (`surface::TIMED` lists it): the idle timeout (X4).
pub(crate) const NAME: &str = "sibling idle timeout";

/// When the first active session times out.
pub(crate) fn deadline(st: &impl SiblingState) -> Option<Timestamp> {
    st.active_sessions().map(|s| session_due(st, s)).min()
}

/// When an active sibling session times out: its receiving thread's last activity (or the
/// session's start) plus the idle timeout.
fn session_due(st: &impl SiblingState, s: &SiblingSession) -> Timestamp {
    let last = st.activities().get(&s.sibling_thread).and_then(|a| a.last_activity_at).unwrap_or(s.created_at);
    last.max(s.created_at).plus(s.idle_timeout_ms)
}

/// Ends the sessions past their idle timeout.
pub(crate) fn on_due<'a>(tx: &mut impl SiblingTx<'a>) -> Result<(), CallError> {
    let now = tx.now();
    let due_sessions: Vec<SiblingSession> =
        tx.st().active_sessions().filter(|s| session_due(tx.st(), s) <= now).cloned().collect();
    for mut s in due_sessions {
        // The sibling stayed quiet past its idle timeout: control goes back to the originator.
        if let Some(to) = session_transition(s.status, SessionEvent::IdleTimeout) {
            s.status = to;
            s.ended_at = Some(now);
            let minutes = s.idle_timeout_ms / MINUTE;
            crate::sibling::flow::resume_originator(
                tx,
                &s,
                format!("[Bot resumed — the sibling agent was quiet for {minutes} minutes and control came back. Outcome: timed_out.]"),
            );
            tx.put_audit(AuditEntry {
                at: now,
                session_id: s.session_id.clone(),
                actor: "baton".into(),
                action: "timed_out".into(),
                outcome: None,
                summary: None,
                reason: Some(format!("no activity for {minutes} minutes")),
            });
            tx.put_session(s);
        }
    }
    Ok(())
}
