//! Mailbox messages between threads (rules M1–M9) and the pair rate limit.
use crate::ground::time::{Timestamp, SECOND};
use serde::{Deserialize, Serialize};

/// Longest body, in characters (rule M9).
pub(crate) const MAX_BODY_CHARS: usize = 16_000;
/// Messages one sender–recipient pair may send per window (rule M8).
pub(crate) const RATE_LIMIT: usize = 12;
/// The rolling window of rule M8.
pub(crate) const RATE_WINDOW_MS: u64 = 300 * SECOND;
/// The delivery sweep period (rule M5).
pub(crate) const SWEEP_PERIOD_MS: u64 = 30 * SECOND;

/// Where a message is.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MailState {
    /// Waiting in the recipient's mailbox.
    Queued,
    /// Handed to the recipient by a wake-up (M5).
    Delivered,
    /// Returned by `READ_MAIL` (M3).
    Read,
}

/// One mailbox message. The body is kept whole; nothing is ever cut.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// Id.
    pub message_id: crate::ground::ids::MessageId,
    /// Send order.
    pub seq: u64,
    /// Sending thread.
    pub from_thread_id: crate::ground::ids::ThreadId,
    /// Sending bot.
    pub from_bot_id: crate::ground::ids::BotId,
    /// Recipient thread.
    pub to_thread_id: crate::ground::ids::ThreadId,
    /// Recipient bot.
    pub to_bot_id: crate::ground::ids::BotId,
    /// Optional one-line label.
    #[serde(default, skip_serializing_if = "crate::ground::stored::at_default")]
    pub subject: Option<String>,
    /// Body.
    pub body: String,
    /// Sent at.
    pub sent_at: Timestamp,
    /// Where it is.
    pub state: MailState,
    /// System notice (e.g. `[HANDOFF COMPLETE]`) rather than an agent's message: not rate-limited.
    #[serde(default, skip_serializing_if = "crate::ground::stored::at_default")]
    pub system: bool,
}

impl crate::ground::stored::Omitted for Message {
    const OMITTED: &'static [&'static str] = &["subject", "system"];
}

crate::ground::delta::delta! {
    /// A mail message's delta (log format v2): usually its delivery state.
    MessageDelta for Message {
        key: [message_id],
        seq: u64,
        from_thread_id: crate::ground::ids::ThreadId,
        from_bot_id: crate::ground::ids::BotId,
        to_thread_id: crate::ground::ids::ThreadId,
        to_bot_id: crate::ground::ids::BotId,
        subject: Option<String>,
        body: String,
        sent_at: Timestamp,
        state: MailState,
        system: bool,
    }
}

/// The M8 window for one pair: given the send times of the pair (oldest first), how long
/// until one more may be sent. `None` means it may be sent now.
pub(crate) fn rate_wait(sent: &[Timestamp], now: Timestamp) -> Option<u64> {
    let in_window: Vec<&Timestamp> = sent.iter().rev().take_while(|t| now.since(**t) < RATE_WINDOW_MS).collect();
    if in_window.len() < RATE_LIMIT {
        return None;
    }
    // The oldest send still counted must leave the window first.
    let oldest_counted = *in_window[RATE_LIMIT - 1];
    Some(RATE_WINDOW_MS - now.since(oldest_counted))
}

// The sealing dictionary (ground::records): one sample message in its JSON form (a delivered
// report), as sealed: without its own id.
impl crate::ground::records::Sealable for Message {
    const DICTIONARY: &'static [u8] = br#"{"message_id":"","seq":1,"from_thread_id":"chat_0000000000000000","from_bot_id":"","to_thread_id":"chat_","to_bot_id":"","body":"","sent_at":1767600000000,"state":"delivered"}"#;
    const ID_FIELD: Option<&'static str> = Some("message_id");

    /// Handed to its recipient: only `READ_MAIL` writes it again.
    fn at_rest(&self) -> bool {
        self.state != MailState::Queued
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn m8_twelve_per_rolling_window() {
        let sent: Vec<Timestamp> = (0..12).map(|i| Timestamp(i * 10 * SECOND)).collect();
        // 12 sent in [0 s, 110 s]: the 13th at 120 s waits until the first leaves (300 s).
        assert_eq!(rate_wait(&sent, Timestamp(120 * SECOND)), Some(180 * SECOND));
        assert_eq!(rate_wait(&sent[..11], Timestamp(120 * SECOND)), None);
        assert_eq!(rate_wait(&sent, Timestamp(300 * SECOND)), None);
    }

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn m8_reads_only_the_last_twelve_sends_so_the_state_keeps_only_those() {
        // Send times a few seconds to a few minutes apart, some out of order (a host's clock
        // may step back); at every point, the last twelve answer as the whole history does.
        let (mut sent, mut waits) = (Vec::new(), 0);
        let mut t = 1_000 * SECOND;
        for i in 0..400u64 {
            t = if i % 37 == 0 { t - 20 * SECOND } else { t + (i * 7919 % 61 + 1) * SECOND };
            sent.push(Timestamp(t));
            for later in [0, 5, 90, 299, 300, 301, 700].map(|s| Timestamp(t + s * SECOND)) {
                let kept = &sent[sent.len().saturating_sub(RATE_LIMIT)..];
                assert_eq!(rate_wait(kept, later), rate_wait(&sent, later), "send {i}, asked at {}", later.0);
                waits += usize::from(rate_wait(&sent, later).is_some());
            }
        }
        assert!(waits > 100, "the pair was over the limit often ({waits} times)");
    }
}

/// A mailbox message as READ_MAIL returns it (and a wake hands it over, M5).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct MailItem {
    /// Id.
    pub message_id: crate::ground::ids::MessageId,
    /// Sending thread (reply there with `mailbox_action`).
    pub from_thread_id: crate::ground::ids::ThreadId,
    /// Sending bot.
    pub from_bot_id: String,
    /// Label.
    pub subject: Option<String>,
    /// Body, whole.
    pub body: String,
    /// When it was sent (ISO 8601).
    pub sent_at: String,
}

impl MailItem {
    /// A stored message as READ_MAIL and a wake hand it over.
    pub(crate) fn of(m: &Message) -> MailItem {
        MailItem {
            message_id: m.message_id.clone(),
            from_thread_id: m.from_thread_id.clone(),
            from_bot_id: m.from_bot_id.as_str().to_owned(),
            subject: m.subject.clone(),
            body: m.body.clone(),
            sent_at: m.sent_at.to_iso(),
        }
    }
}
