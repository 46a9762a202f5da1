//! What a host needs to run a handoff's child: the `start_child` effect, and the `report_to`
//! it and `follow_up` carry (G10, M2, S3), so a host writes the child's instructions from the
//! effect alone.
use crate::handoff::effect::{Effect, ReportHow, ReportTo};
use crate::handoff::thread::Thread;
use crate::handoff::{Handoff, OnCompletion};

/// The `start_child` effect of `h`, whose child is `child` (G3, G6, G7, G11): emitted when the
/// handoff starts, and rebuilt for `in_flight` after a host restart.
pub(crate) fn start_child(h: &Handoff, child: &Thread) -> Effect {
    Effect::StartChild {
        handoff_id: h.handoff_id.clone(),
        thread_id: child.thread_id.clone(),
        bot_id: child.bot_id.as_str().to_owned(),
        task: h.spec.task.clone(),
        parent_thread_id: h.parent_thread_id.clone(),
        parent_bot_id: h.parent_bot_id.as_str().to_owned(),
        report_to: report_to(h),
        watched: h.watch_until.is_some(),
        include_parent_context: h.spec.include_parent_context,
        inline: child.inline,
        context_data: h.spec.context_data.clone(),
        blueprint_name: h.spec.blueprint_name.clone(),
    }
}

/// Where and how the child of `h` reports.
pub(crate) fn report_to(h: &Handoff) -> ReportTo {
    let how = match (h.spec.is_plain(), h.spec.on_completion) {
        (false, OnCompletion::None) | (true, OnCompletion::None) => ReportHow::None,
        (false, _) => ReportHow::Blueprint,
        (true, OnCompletion::Return) => ReportHow::Response,
        (true, OnCompletion::Notify) => ReportHow::Mailbox,
    };
    let (to, bot) = (&h.parent_thread_id, &h.parent_bot_id);
    let instructions = match how {
        ReportHow::Mailbox => format!(
            "When the work is finished, blocked or has failed, report once with mailbox_action: action \
             SEND_MESSAGE, to_thread_id \"{to}\", to_bot_id \"{bot}\", the outcome in body. That message \
             completes the handoff; a final answer alone does not."
        ),
        ReportHow::Response => {
            "Your final answer is the result handed back to the thread that asked; no message is needed.".to_string()
        }
        ReportHow::Blueprint => format!(
            "Run the blueprint to @END and store its outputs with store_blueprint_outputs; thread \"{to}\" \
             (bot \"{bot}\") is told at the end of the mission."
        ),
        ReportHow::None => format!(
            "Nothing is reported automatically. To tell the thread that asked, use mailbox_action \
             SEND_MESSAGE with to_thread_id \"{to}\" and to_bot_id \"{bot}\"."
        ),
    };
    ReportTo {
        how,
        to_thread_id: to.clone(),
        to_bot_id: bot.as_str().to_owned(),
        on_completion: h.spec.on_completion,
        instructions,
    }
}
