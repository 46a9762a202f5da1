//! What follows from what: activity moving a handoff, a child finishing, mail being queued.
//! Shared by tools, host inputs and the timers so each consequence is decided in one place.
use crate::ground::error::CallError;
use crate::ground::ids::IdKind;
use crate::ground::machine::{refusal, Refused};
use crate::handoff::effect::Effect;
use crate::handoff::lifecycle::{transition, Event, HandoffLifecycle, TransitionError};
use crate::handoff::mailbox::{MailState, Message, SWEEP_PERIOD_MS};
use crate::handoff::store::{HandoffState, HandoffTx};
use crate::handoff::thread::{Activity, Owner, Thread};
use crate::handoff::{Handoff, OnCompletion, Status};
use serde_json::{json, Value};

impl From<TransitionError> for CallError {
    fn from(e: TransitionError) -> Self {
        let r = match e {
            TransitionError::Terminal { from, event } => Refused::Terminal { from, event },
            TransitionError::Invalid { from, event } => Refused::Invalid { from, event },
        };
        refusal::<HandoffLifecycle>(r)
    }
}

/// How a child's work came to an end.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Finish {
    /// Mailbox report to the source thread (M2).
    Report,
    /// A response while a synchronous watch was open (G9, G16).
    Watched,
    /// The blueprint reached `@END` (S3, B5).
    BlueprintEnd,
    /// An `on_completion=return` child answered with no waiter left.
    Unwaited,
}

/// The consequences, for any command in flight that the handoff capability stages through.
pub(crate) trait Flow<'a>: HandoffTx<'a> {
    /// Moves `h` along the lifecycle table, stamping the time.
    fn advance(&mut self, h: &mut Handoff, event: Event) -> Result<(), CallError> {
        let to = transition(h.status, event)?;
        if to != h.status {
            h.status = to;
            h.status_at = self.now();
        }
        Ok(())
    }

    /// Records activity on a thread; a child's activity moves its handoff to `running`.
    fn touch(&mut self, thread_id: &str, f: impl FnOnce(&mut Activity)) -> Activity {
        let mut act = self.activity(thread_id);
        f(&mut act);
        act.last_activity_at = Some(self.now());
        self.put_activity(thread_id, act.clone());
        if let Some(h) = self.handoff_of_child(thread_id).filter(|h| !h.status.is_terminal()) {
            if transition(h.status, Event::ChildActive).ok() != Some(h.status) {
                let mut h = h.clone();
                let _ = self.advance(&mut h, Event::ChildActive);
                self.put_handoff(h);
            }
        }
        act
    }

    /// The identity a woken turn carries (M6): the recorded owner, or none when there is no
    /// owner or the owner is the system default while authentication is on.
    fn wake_identity(&self, thread: &Thread) -> Option<Owner> {
        let owner = thread.owner.clone()?;
        let cfg = self.st().config();
        if cfg.auth_enabled && cfg.system_default_owner.as_deref() == Some(owner.user_id.as_str()) {
            return None;
        }
        Some(owner)
    }

    /// Queues a message in its recipient's mailbox and picks the delivery path (M3, M4, M5).
    /// Returns `notice_queued` or `normal_delivery`.
    fn queue_mail(&mut self, msg: Message) -> &'static str {
        let to = msg.to_thread_id.clone();
        let mut act = self.activity(&to);
        let limit = self.st().config().undelivered_wake_limit as usize;
        let path = if act.mid_turn && act.notices.len() < limit {
            let label = msg.subject.as_deref().map(|s| format!(" — {s}")).unwrap_or_default();
            act.notices.push(format!(
                "[Mailbox] New message {} from {}{label}. Read it now with mailbox_action(action=\"READ_MAIL\").",
                msg.message_id, msg.from_bot_id
            ));
            self.put_activity(&to, act);
            // M5: the sweep still runs for it, so mail the turn never read is delivered once
            // the recipient is idle.
            let due = self.sweep_due().unwrap_or(self.now().plus(SWEEP_PERIOD_MS));
            self.set_sweep(Some(due));
            "notice_queued"
        } else {
            // Normal delivery: the sweep, brought forward for an eligible idle recipient.
            let eligible = !act.mid_turn && self.st().busy_count() < self.st().config().agent_slots as usize;
            let due = if eligible { self.now() } else { self.sweep_due().unwrap_or(self.now().plus(SWEEP_PERIOD_MS)) };
            let due = self.sweep_due().map_or(due, |d| d.min(due));
            self.set_sweep(Some(due));
            "normal_delivery"
        };
        self.put_message(msg);
        path
    }

    /// A child's work ended `how`, with `answer` (filtered response or report body).
    /// Decides the status, the watch's return, the callback and the parent's notice.
    fn finish(&mut self, mut h: Handoff, answer: Option<String>, how: Finish) -> Result<Handoff, CallError> {
        let watching = h.watch_until.is_some();
        h.result = answer.clone();
        h.finished_at = Some(self.now());
        if how == Finish::BlueprintEnd {
            let outputs =
                h.child_thread_id.as_deref().and_then(|c| self.thread(c)).map(|t| t.blueprint_outputs.clone());
            h.outputs = outputs;
        }
        if watching {
            h.watch_until = None;
            self.emit(Effect::WatchReturned {
                handoff_id: h.handoff_id.clone(),
                parent_thread_id: h.parent_thread_id.clone(),
                status: "completed".into(),
                result: answer.clone(),
                partial_result: None,
            });
            if h.callback_url().is_some() {
                // G14: completion waits for the callback to land.
                self.send_callback(&mut h, "completed");
                self.put_handoff(h.clone());
                return Ok(h);
            }
        }
        if how == Finish::BlueprintEnd && h.spec.on_completion == OnCompletion::Notify {
            self.notify_parent(&mut h);
        }
        let event = match (how, h.spec.on_completion, watching) {
            (Finish::Unwaited, _, _) => Event::FinishUnwaited,
            (Finish::BlueprintEnd, OnCompletion::Return, false) => Event::FinishUnwaited,
            _ => Event::Complete,
        };
        self.advance(&mut h, event)?;
        self.put_handoff(h.clone());
        Ok(h)
    }

    /// Emits the webhook post for a watch result (G14).
    fn send_callback(&mut self, h: &mut Handoff, status: &str) {
        let Some(url) = h.callback_url().map(str::to_string) else { return };
        let (headers, tag) = match (&h.spec.callback_url, &h.callback) {
            (None, Some(c)) => (c.headers.clone(), c.tag.clone()),
            _ => Default::default(),
        };
        h.callback_pending = true;
        let payload = json!({
            "handoff_id": h.handoff_id,
            "thread_id": h.child_thread_id,
            "status": status,
            "result": h.result,
        });
        self.emit(Effect::Callback {
            handoff_id: h.handoff_id.clone(),
            url,
            attempt: h.callback_failures + 1,
            payload,
            headers,
            tag,
        });
    }

    /// `[HANDOFF COMPLETE]`: a system message with the stored outputs into the parent's mailbox (G10, B5).
    fn notify_parent(&mut self, h: &mut Handoff) {
        let outputs = Value::Object(h.outputs.clone().unwrap_or_default());
        let blueprint = h.spec.blueprint_name.clone().unwrap_or_default();
        let child = h.child_thread_id.clone().unwrap_or_default();
        let mut body = format!(
            "[HANDOFF COMPLETE] Blueprint {blueprint} reached @END in thread {child} (handoff {}).\nOutputs: {outputs}",
            h.handoff_id
        );
        if let Some(r) = &h.result {
            body.push_str("\nFinal response:\n");
            body.push_str(r);
        }
        let (id, seq) = self.new_seq_id::<crate::ground::ids::MessageId>(IdKind::Message);
        let msg = Message {
            message_id: id.clone(),
            seq,
            from_thread_id: child,
            from_bot_id: h.child_bot_id.clone(),
            to_thread_id: h.parent_thread_id.clone(),
            to_bot_id: h.parent_bot_id.clone(),
            subject: Some("[HANDOFF COMPLETE]".into()),
            body,
            sent_at: self.now(),
            state: MailState::Queued,
            system: true,
        };
        h.notice_message_id = Some(id);
        self.queue_mail(msg);
    }
}

/// Statuses `handoff_send` refuses (H2).
pub(crate) fn send_refused(status: Status) -> bool {
    matches!(status, Status::Cancelled | Status::Error | Status::MaterializeFailed)
}

impl<'a, T: HandoffTx<'a> + ?Sized> Flow<'a> for T {}
