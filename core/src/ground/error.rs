//! Errors at the engine's JSON boundary: one code table, each code stable forever.
use serde::Serialize;
use serde_json::{json, Value};

/// Stable error codes of `call` and host inputs. The number and the name never change; JS
/// and LLM hosts branch on them. Where a reference document fixes a code (`-32007`,
/// `-32008`) it is used as given; the others are Baton's own (see docs/ERRORS.md).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ErrorCode {
    /// The arguments are not JSON at all. Remedy: send one JSON object.
    ParseError,
    /// No tool (or host input) by that name. Remedy: use a name from `baton tools`.
    UnknownTool,
    /// A field is missing, has the wrong type, an unknown value or is out of range; the
    /// message names the field and the rule.
    InvalidParams,
    /// A handoff, thread, bot, message or blueprint named in the arguments does not exist.
    NotFound,
    /// The caller may not act on that record (not its delegation, not its thread).
    Forbidden,
    /// Mailbox pair limit (rule M8): wait `retry_after_seconds`.
    RateLimited,
    /// The calling thread may not use this tool (rule G13); the call did not run.
    ToolNotAllowed,
    /// The record is terminal and can never move again (rules S10, I7).
    ThreadTerminal,
    /// The record exists and is live, but the requested move is not an edge of its lifecycle.
    InvalidTransition,
    /// The log could not take the command; nothing changed.
    StorageFailed,
    /// The recipient's trust policy blocks this sender (rule I3); nothing changed.
    SenderBlocked,
    /// Another command was committed after this one was prepared; prepare it again.
    StaleCommand,
}

impl ErrorCode {
    /// The stable number.
    pub fn number(self) -> i64 {
        match self {
            ErrorCode::ParseError => -32700,
            ErrorCode::UnknownTool => -32601,
            ErrorCode::InvalidParams => -32602,
            ErrorCode::NotFound => -32001,
            ErrorCode::Forbidden => -32002,
            ErrorCode::RateLimited => -32003,
            ErrorCode::ToolNotAllowed => -32004,
            ErrorCode::ThreadTerminal => -32007,
            ErrorCode::InvalidTransition => -32008,
            ErrorCode::StorageFailed => -32010,
            ErrorCode::SenderBlocked => -32011,
            ErrorCode::StaleCommand => -32012,
        }
    }

    /// The stable name.
    pub fn name(self) -> &'static str {
        match self {
            ErrorCode::ParseError => "parse_error",
            ErrorCode::UnknownTool => "unknown_tool",
            ErrorCode::InvalidParams => "invalid_params",
            ErrorCode::NotFound => "not_found",
            ErrorCode::Forbidden => "forbidden",
            ErrorCode::RateLimited => "rate_limited",
            ErrorCode::ToolNotAllowed => "tool_not_allowed",
            ErrorCode::ThreadTerminal => "thread_terminal",
            ErrorCode::InvalidTransition => "invalid_transition",
            ErrorCode::StorageFailed => "storage_failed",
            ErrorCode::SenderBlocked => "sender_blocked",
            ErrorCode::StaleCommand => "stale_command",
        }
    }

    /// Every code, for documentation and tests.
    pub const ALL: [ErrorCode; 12] = [
        ErrorCode::ParseError,
        ErrorCode::UnknownTool,
        ErrorCode::InvalidParams,
        ErrorCode::NotFound,
        ErrorCode::Forbidden,
        ErrorCode::RateLimited,
        ErrorCode::ToolNotAllowed,
        ErrorCode::ThreadTerminal,
        ErrorCode::InvalidTransition,
        ErrorCode::StorageFailed,
        ErrorCode::SenderBlocked,
        ErrorCode::StaleCommand,
    ];
}

/// An error answered by `call` or a host input. A command that returns one changed nothing.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{} ({}): {message}", code.name(), code.number())]
pub struct CallError {
    /// Stable code.
    pub code: ErrorCode,
    /// What went wrong and how to fix it, naming the field and the rule.
    pub message: String,
    /// The argument at fault, as a JSON path (`task`, `allowed_tools[2]`).
    pub field: Option<String>,
    /// The rule id of RULES.md that the check enforces.
    pub rule: Option<&'static str>,
    /// Extra machine-readable detail (`retry_after_seconds`, `status`, …).
    pub data: Option<Value>,
}

impl CallError {
    /// An error with a code and message only.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        CallError { code, message: message.into(), field: None, rule: None, data: None }
    }

    /// An `invalid_params` error about one field.
    pub fn invalid(field: &str, rule: &'static str, message: impl Into<String>) -> Self {
        CallError::new(ErrorCode::InvalidParams, format!("{field}: {} (rule {rule})", message.into()))
            .field(field)
            .rule(rule)
    }

    /// Names the field at fault.
    pub fn field(mut self, field: &str) -> Self {
        self.field = Some(field.to_string());
        self
    }

    /// Names the rule.
    pub fn rule(mut self, rule: &'static str) -> Self {
        self.rule = Some(rule);
        self
    }

    /// Adds machine-readable detail.
    pub fn data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    /// The JSON shape every host sees: `{"error": {"code", "name", "message", "field"?, "rule"?, "data"?}}`.
    pub fn to_json(&self) -> Value {
        let mut e = json!({
            "code": self.code.number(),
            "name": self.code.name(),
            "message": self.message,
        });
        if let Some(f) = &self.field {
            e["field"] = json!(f);
        }
        if let Some(r) = self.rule {
            e["rule"] = json!(r);
        }
        if let Some(d) = &self.data {
            e["data"] = d.clone();
        }
        json!({ "error": e })
    }
}

/// Storage refused an append or a load (see [`crate::Storage`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, Serialize)]
pub enum StorageError {
    /// The backing store failed; the record was not written.
    #[error("storage unavailable: {0}")]
    Unavailable(String),
    /// A stored record could not be decoded.
    #[error("stored record {index} is corrupt: {reason}")]
    Corrupt {
        /// Position in the log.
        index: usize,
        /// Decoder message.
        reason: String,
    },
}

/// Rebuilding an engine from its log failed; nothing was opened.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LoadError {
    /// The storage could not be read.
    #[error(transparent)]
    Storage(#[from] StorageError),
    /// The log was written by a format this build does not read.
    #[error("log record {index} has format version {found}; this build reads versions 1 to {supported}")]
    UnsupportedVersion {
        /// Position in the log.
        index: usize,
        /// Version found.
        found: u32,
        /// The newest version this build reads (and the one it writes).
        supported: u32,
    },
}
