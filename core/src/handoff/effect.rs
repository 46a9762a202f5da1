//! Effects: what the host must do after a command (start a child, wake a thread, post a callback).
//! Each "run this" effect carries everything the host needs to run it: the task, who to
//! answer and how, the mail a woken turn was woken for.
use crate::handoff::thread::Owner;
use crate::handoff::OnCompletion;
use serde::Serialize;
use serde_json::{Map, Value};

/// How a child's work reaches the thread that handed it over (G10, M2, B3).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ReportHow {
    /// One `mailbox_action` `SEND_MESSAGE` to `to_thread_id` / `to_bot_id`; it completes the
    /// handoff (M2).
    Mailbox,
    /// The child's final response is the result (`on_completion=return`, G10).
    Response,
    /// The blueprint reports at `@END` with its stored outputs (G10, S3).
    Blueprint,
    /// Nothing is reported automatically (`on_completion=none`); mail still reaches the parent.
    None,
}

/// Where and how a child answers the thread that handed it work: enough for a host to write
/// the child's instructions without looking anything up.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ReportTo {
    /// How the work is reported.
    pub how: ReportHow,
    /// The thread to answer (the parent).
    pub to_thread_id: crate::ground::ids::ThreadId,
    /// Its bot (`mailbox_action`'s `to_bot_id`).
    pub to_bot_id: String,
    /// The handoff's `on_completion` (G10).
    pub on_completion: OnCompletion,
    /// One paragraph for the child's prompt saying how and when to report.
    pub instructions: String,
}

/// A mail message handed to a woken turn (M5): what `READ_MAIL` would have returned for it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct WakeMail {
    /// The message, exactly as READ_MAIL returns it.
    #[serde(flatten)]
    pub mail: crate::handoff::mailbox::MailItem,
    /// A system notice (such as a completed handoff's report to its parent) rather than an
    /// agent's own message.
    pub system: bool,
}

/// Something the host does on Baton's behalf. Emitted only after the command's log record
/// is stored; drained with [`crate::Engine::take_effects`]. Effects are never logged.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "effect", rename_all = "snake_case")]
pub enum Effect {
    /// Run the child thread on `task` (G3, G11).
    StartChild {
        /// Handoff.
        handoff_id: crate::ground::ids::HandoffId,
        /// Child thread.
        thread_id: crate::ground::ids::ThreadId,
        /// Child's bot.
        bot_id: String,
        /// Work description.
        task: String,
        /// Parent thread.
        parent_thread_id: crate::ground::ids::ThreadId,
        /// Parent's bot.
        parent_bot_id: String,
        /// How and where the child reports (G10, M2).
        report_to: ReportTo,
        /// The parent waits in its `handoff` call until `watch_returned` (G9).
        watched: bool,
        /// Include the parent's context (G11).
        include_parent_context: bool,
        /// Run inside the caller's turn (`thread_mode=inline`).
        inline: bool,
        /// Context handed to the child (G6).
        #[serde(skip_serializing_if = "Option::is_none")]
        context_data: Option<Map<String, Value>>,
        /// Blueprint to launch (G7).
        #[serde(skip_serializing_if = "Option::is_none")]
        blueprint_name: Option<String>,
    },
    /// Ask clients to open the new thread (G11 `auto_redirect`).
    Redirect {
        /// Thread to open.
        thread_id: crate::ground::ids::ThreadId,
        /// Its link.
        thread_link: String,
    },
    /// A synchronous `handoff` call returns now (G9, G16, B5).
    WatchReturned {
        /// Handoff.
        handoff_id: crate::ground::ids::HandoffId,
        /// Waiting parent thread.
        parent_thread_id: crate::ground::ids::ThreadId,
        /// `completed`, `first_response`, `watch_expired`, `error` or `materialize_failed`.
        status: String,
        /// The child's answer (completed).
        #[serde(skip_serializing_if = "Option::is_none")]
        result: Option<String>,
        /// The child's answer so far (first_response, watch_expired).
        #[serde(skip_serializing_if = "Option::is_none")]
        partial_result: Option<String>,
    },
    /// POST the watch result to the caller's webhook; report the outcome with `callback_result` (G14).
    Callback {
        /// Handoff.
        handoff_id: crate::ground::ids::HandoffId,
        /// Webhook.
        url: String,
        /// 1-based attempt number.
        attempt: u32,
        /// JSON body to post.
        payload: Value,
        /// Extra request headers (a host-attached callback's, `set_callback`).
        #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
        headers: std::collections::BTreeMap<String, String>,
        /// The host's label of a host-attached callback.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tag: Option<String>,
    },
    /// Start a turn on an idle thread with its waiting mail (M5), acting as `identity` (M6).
    Wake {
        /// Thread to wake.
        thread_id: crate::ground::ids::ThreadId,
        /// Its bot.
        bot_id: String,
        /// The recorded owner, or `null` when the turn carries no identity.
        identity: Option<Owner>,
        /// Messages handed over.
        message_ids: Vec<crate::ground::ids::MessageId>,
        /// The same messages, whole: the woken turn's input (M5). They count as delivered;
        /// `READ_MAIL` in that turn returns only mail queued after the wake.
        messages: Vec<WakeMail>,
    },
    /// Remind a quiet child to report (S7).
    Nudge {
        /// Handoff.
        handoff_id: crate::ground::ids::HandoffId,
        /// Child thread.
        thread_id: crate::ground::ids::ThreadId,
        /// Child bot.
        bot_id: String,
        /// 1, 2 or 3.
        nudge_no: u32,
        /// Reminder text.
        text: String,
    },
    /// Tell a teammate that a relay thread changed (sent to them, completed, cancelled) (I8).
    RelayNotify {
        /// Teammate to notify.
        to: String,
        /// Relay thread.
        thread_id: crate::ground::ids::RelayThreadId,
        /// `received`, `completed` or `cancelled`.
        event: String,
    },
    /// Start the receiving side of a sibling handoff: the sibling takes over the conversation.
    StartSibling {
        /// Session.
        session_id: crate::ground::ids::SessionId,
        /// Receiving thread.
        thread_id: crate::ground::ids::ThreadId,
        /// Sibling bot.
        bot_id: String,
        /// Originator thread (bypassed until release).
        originator_thread_id: crate::ground::ids::ThreadId,
        /// Originator's bot.
        originator_bot_id: String,
        /// Initial context: the task and the `[EXPECTED RETURN SCHEMA]` block.
        context: String,
    },
    /// Post a system message into a thread's conversation (X5: the originator resumes).
    SystemMessage {
        /// Thread.
        thread_id: crate::ground::ids::ThreadId,
        /// Text.
        text: String,
    },
    /// Run a scheduled skill now (A6).
    RunSchedule {
        /// Schedule.
        schedule_id: crate::ground::ids::ScheduleId,
        /// Skill to run.
        skill_name: String,
        /// Session (thread) it belongs to.
        thread_id: crate::ground::ids::ThreadId,
        /// Its bot.
        bot_id: String,
    },
    /// Show the questions in place; the same run continues with the answers (A8, interactive).
    AskInline {
        /// Question id (answer with `answer_user`).
        question_id: crate::ground::ids::QuestionId,
        /// Thread.
        thread_id: crate::ground::ids::ThreadId,
        /// Questions.
        questions: Vec<crate::handoff::question::Question>,
    },
    /// End the run: a pending snapshot is saved and the run resumes when answered (A8).
    EndRun {
        /// Thread.
        thread_id: crate::ground::ids::ThreadId,
        /// Question id.
        question_id: crate::ground::ids::QuestionId,
        /// The questions, for the host to put to the user (answer with `answer_user`).
        questions: Vec<crate::handoff::question::Question>,
    },
    /// Resume the run with full context and the answers (A8). Masked answers are in clear
    /// here only: effects are never written to the log.
    ResumeRun {
        /// Thread.
        thread_id: crate::ground::ids::ThreadId,
        /// Question id.
        question_id: crate::ground::ids::QuestionId,
        /// Answers, in question order.
        answers: Vec<Value>,
        /// The run's tool calls before the question, clamped (non-interactive runs).
        snapshot: Option<Vec<crate::handoff::calls::CallSnapshot>>,
    },
    /// Run a leg now in its own session (A1); it sees none of the parent conversation.
    StartLeg {
        /// Leg (also the background task id).
        leg_id: crate::ground::ids::LegId,
        /// Its session.
        session_id: String,
        /// Its thread (report its tool calls there: the excluded tools are refused).
        thread_id: crate::ground::ids::ThreadId,
        /// The thread that ran the leg; its result goes there as `leg_result`.
        parent_thread_id: crate::ground::ids::ThreadId,
        /// Model.
        model: String,
        /// Reasoning level.
        reasoning: String,
        /// The subtask.
        task: String,
        /// Optional system prompt.
        #[serde(skip_serializing_if = "Option::is_none")]
        system_prompt: Option<String>,
        /// Background leg.
        background: bool,
    },
    /// A leg ended: its result for the parent (A3): the header and the report path.
    LegResult {
        /// Leg.
        leg_id: crate::ground::ids::LegId,
        /// Parent thread.
        parent_thread_id: crate::ground::ids::ThreadId,
        /// `done`, `timed_out` or `failed`.
        status: String,
        /// Header plus report path (or what went wrong).
        result: String,
    },
    /// Open a new task carrying a finished background group's objective, next and reports (A5).
    StartFollowUpTask {
        /// Thread of the starting task.
        thread_id: crate::ground::ids::ThreadId,
        /// Its bot.
        bot_id: String,
        /// The group.
        group_id: crate::ground::ids::GroupId,
        /// The starting task (readable through chat history).
        after_task_id: String,
        /// What the new task is told.
        prompt: String,
    },
    /// Deliver `handoff_send` guidance to the child (H1).
    FollowUp {
        /// Handoff.
        handoff_id: crate::ground::ids::HandoffId,
        /// Child thread.
        thread_id: crate::ground::ids::ThreadId,
        /// Child bot.
        bot_id: String,
        /// Guidance, as sent.
        message: String,
        /// The child was mid-turn when it was queued: steer the live turn with it; otherwise
        /// run a new turn on it.
        to_live_turn: bool,
        /// Where the child answers (its handoff may already be complete: then the answer
        /// reaches the parent only as mail).
        report_to: ReportTo,
    },
    /// A handoff the host runs was cancelled (C1). Baton does not stop the child and stops
    /// tracking it; the host chooses whether to let the running turn finish or abort it.
    HandoffCancelled {
        /// Handoff.
        handoff_id: crate::ground::ids::HandoffId,
        /// Child thread.
        thread_id: crate::ground::ids::ThreadId,
        /// Child bot.
        bot_id: String,
        /// Parent thread.
        parent_thread_id: crate::ground::ids::ThreadId,
        /// The child was mid-turn.
        mid_turn: bool,
        /// The reason given to `handoff_cancel`.
        #[serde(skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
}
