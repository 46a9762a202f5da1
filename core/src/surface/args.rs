//! The parameters of every tool, as models send them. Schemas are generated from these types.
use crate::engine::limits::NON_BLANK;
use crate::handoff::thread::{BlueprintMode, Visibility};
use crate::handoff::{OnCompletion, ThreadMode};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};

/// Parameters of `handoff`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(extend("allOf" = [
    {"if": {"required": ["callback_url"], "properties": {"callback_url": {"type": "string"}}},
     "then": {"required": ["async_mode"], "properties": {"async_mode": {"const": false}}}}
]))]
pub struct HandoffArgs {
    /// Work description for the spawned thread. Required and non-empty.
    #[schemars(length(min = 1), pattern(NON_BLANK))]
    pub task: String,
    /// Agent to delegate to, by bot id or display name. Default: the calling bot.
    #[serde(default)]
    #[schemars(length(min = 1), pattern(NON_BLANK))]
    pub target_bot: Option<String>,
    /// `spawn` (default) runs the work in a new thread; `inline` runs it inside the caller's turn.
    #[serde(default)]
    #[schemars(extend("default" = "spawn"))]
    pub thread_mode: Option<ThreadMode>,
    /// `visible` (default): the user can open the thread. `hidden`: kept off normal UI surfaces.
    #[serde(default)]
    #[schemars(extend("default" = "visible"))]
    pub visibility: Option<Visibility>,
    /// Show the thread in the sidebar. Default: true when visible, false when hidden.
    #[serde(default)]
    pub show_in_thread_list: Option<bool>,
    /// Title for the spawned thread. Default: derived from the task.
    #[serde(default)]
    pub thread_title: Option<String>,
    /// Structured context handed to the child thread.
    #[serde(default)]
    pub context_data: Option<Map<String, Value>>,
    /// Blueprint to launch in the spawned thread.
    #[serde(default)]
    #[schemars(length(min = 1), pattern(NON_BLANK))]
    pub blueprint_name: Option<String>,
    /// Blueprint mode: `manual` (default), `continuous` or `goal`.
    #[serde(default)]
    #[schemars(extend("default" = "manual"))]
    pub blueprint_mode: Option<BlueprintMode>,
    /// true (default): return at once. false: watch the child for `timeout_seconds`.
    #[serde(default)]
    #[schemars(extend("default" = true))]
    pub async_mode: Option<bool>,
    /// Watch window in seconds for `async_mode=false` (1–86400, default 300). Not an execution limit.
    #[serde(default)]
    #[schemars(extend("default" = 300), range(min = 1, max = 86400))]
    pub timeout_seconds: Option<i64>,
    /// `notify` (default): the child reports with mailbox_action (a blueprint child at @END). `return`: full results to the waiting parent. `none`: no automatic notification.
    #[serde(default)]
    #[schemars(extend("default" = "notify"))]
    pub on_completion: Option<OnCompletion>,
    /// Ask clients to open the new thread.
    #[serde(default)]
    #[schemars(extend("default" = false))]
    pub auto_redirect: Option<bool>,
    /// Tools the child may use. Empty or absent: all of the target's tools. Narrows only; a notify child keeps mailbox_action.
    #[serde(default)]
    #[schemars(inner(length(min = 1), pattern(NON_BLANK)))]
    pub allowed_tools: Option<Vec<String>>,
    /// Include the parent thread's context in the child.
    #[serde(default)]
    #[schemars(extend("default" = false))]
    pub include_parent_context: Option<bool>,
    /// Deprecated; accepted and ignored.
    #[serde(default)]
    #[schemars(extend("default" = true))]
    pub stop_on_timeout: Option<bool>,
    /// Webhook for a synchronous handoff's result. Only with async_mode=false.
    #[serde(default)]
    #[schemars(length(min = 1), pattern(NON_BLANK))]
    pub callback_url: Option<String>,
}

/// Parameters of `handoff_status` and `handoff_results`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HandoffIdArgs {
    /// The `handoff_id` returned by `handoff`.
    pub handoff_id: crate::engine::ids::HandoffId,
}

/// Parameters of `handoff_send`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HandoffSendArgs {
    /// The `handoff_id` returned by `handoff`.
    pub handoff_id: crate::engine::ids::HandoffId,
    /// Follow-up guidance for the child. Non-empty.
    #[schemars(length(min = 1), pattern(NON_BLANK))]
    pub message: String,
}

/// Parameters of `handoff_cancel`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HandoffCancelArgs {
    /// The `handoff_id` returned by `handoff`.
    pub handoff_id: crate::engine::ids::HandoffId,
    /// Why tracking stops; kept on the record.
    #[serde(default)]
    pub reason: Option<String>,
}

/// Parameters of `handoff_list`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HandoffListArgs {
    /// Most records to return, oldest first (default 50); 0 or less returns none.
    #[serde(default)]
    #[schemars(extend("default" = 50))]
    pub limit: Option<i64>,
}

/// Parameters of `get_handoff_inputs`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetHandoffInputsArgs {
    /// Blueprint whose declared inputs to fetch. Default: this thread's blueprint.
    #[serde(default)]
    #[schemars(length(min = 1), pattern(NON_BLANK))]
    pub blueprint_name: Option<String>,
    /// Only these input names. Default: every declared input.
    #[serde(default)]
    pub specific_inputs: Option<Vec<String>>,
}

/// Parameters of `store_blueprint_outputs`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StoreBlueprintOutputsArgs {
    /// Output names and values for downstream blueprints (at least one).
    #[schemars(extend("minProperties" = 1))]
    pub outputs: Map<String, Value>,
    /// Source blueprint, for provenance.
    #[serde(default)]
    #[schemars(length(min = 1), pattern(NON_BLANK))]
    pub blueprint_name: Option<String>,
}

/// `mailbox_action` actions.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
pub enum MailAction {
    /// Send one message to another thread's mailbox.
    #[serde(rename = "SEND_MESSAGE")]
    SendMessage,
    /// Return and consume mail waiting for this thread.
    #[serde(rename = "READ_MAIL")]
    ReadMail,
}

/// Parameters of `mailbox_action`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(extend("allOf" = [
    {"if": {"properties": {"action": {"const": "SEND_MESSAGE"}}},
     "then": {"required": ["to_thread_id", "to_bot_id", "body"],
              "properties": {"to_thread_id": {"type": "string"}, "to_bot_id": {"type": "string"}, "body": {"type": "string"}}}},
    {"if": {"properties": {"action": {"const": "READ_MAIL"}}},
     "then": {"properties": {"to_thread_id": {"type": "null"}, "to_bot_id": {"type": "null"},
                             "body": {"type": "null"}, "subject": {"type": "null"}}}}
]))]
pub struct MailboxActionArgs {
    /// `SEND_MESSAGE` or `READ_MAIL`.
    pub action: MailAction,
    /// Recipient thread (SEND_MESSAGE). For a spawned thread, the `thread_id` from `handoff`.
    #[serde(default)]
    #[schemars(length(min = 1), pattern(NON_BLANK))]
    pub to_thread_id: Option<crate::engine::ids::ThreadId>,
    /// Bot that owns the recipient thread (SEND_MESSAGE).
    #[serde(default)]
    #[schemars(length(min = 1), pattern(NON_BLANK))]
    pub to_bot_id: Option<String>,
    /// Message content, 1–16000 characters (SEND_MESSAGE). Self-contained: findings and their basis.
    #[serde(default)]
    #[schemars(length(min = 1, max = crate::handoff::mailbox::MAX_BODY_CHARS), pattern(NON_BLANK))]
    pub body: Option<String>,
    /// One-line label shown above the body.
    #[serde(default)]
    pub subject: Option<String>,
}
