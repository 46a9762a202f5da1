//! What ends a sibling session, whoever ends it (a release, or the idle timeout): the
//! originator's thread stops being bypassed and hears how it went.
use crate::engine::effect::Effect;
use crate::engine::tx::Tx;
use crate::sibling::SiblingSession;

/// Hands control back to the originator: its thread stops being bypassed, and it receives
/// `text` as a system message.
pub(crate) fn resume_originator(tx: &mut Tx<'_>, session: &SiblingSession, text: String) {
    if let Some(t) = tx.thread(&session.originator_thread) {
        let mut t = t.clone();
        t.bypassed_by = None;
        tx.put_thread(t);
    }
    tx.emit(Effect::SystemMessage { thread_id: session.originator_thread.clone(), text });
}
