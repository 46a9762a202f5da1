//! A2A's error codes (and JSON-RPC's own).
pub const INVALID_PARAMS: i64 = -32602;
pub const METHOD_NOT_FOUND: i64 = -32601;
pub const TASK_NOT_FOUND: i64 = -32001;
pub const TASK_NOT_CANCELABLE: i64 = -32002;
pub const UNSUPPORTED_OPERATION: i64 = -32004;
pub const CONTENT_TYPE_NOT_SUPPORTED: i64 = -32005;
pub const VERSION_NOT_SUPPORTED: i64 = -32009;
/// A2A v1.1 draft (§3.3.2): `ifGenerationMatch` is not the task's generation.
pub const TASK_GENERATION_MISMATCH: i64 = -32010;

pub const INVALID_REQUEST: i64 = -32600;
pub const PARSE_ERROR: i64 = -32700;
pub const INTERNAL: i64 = -32603;
pub const EXTENDED_CARD_NOT_CONFIGURED: i64 = -32007;

/// Each error's JSON-RPC code, its `reason` (spec §5.4: the A2A error type in upper snake
/// case without `Error`; JSON-RPC's own errors have none), its HTTP status and its gRPC
/// status (spec §5.4's table; JSON-RPC's own errors as the HTTP+JSON binding answers them).
const TABLE: [(i64, Option<&str>, u16, &str); 15] = [
    (TASK_NOT_FOUND, Some("TASK_NOT_FOUND"), 404, "NOT_FOUND"),
    (TASK_NOT_CANCELABLE, Some("TASK_NOT_CANCELABLE"), 409, "FAILED_PRECONDITION"),
    (-32003, Some("PUSH_NOTIFICATION_NOT_SUPPORTED"), 400, "UNIMPLEMENTED"),
    (UNSUPPORTED_OPERATION, Some("UNSUPPORTED_OPERATION"), 400, "UNIMPLEMENTED"),
    (CONTENT_TYPE_NOT_SUPPORTED, Some("CONTENT_TYPE_NOT_SUPPORTED"), 415, "INVALID_ARGUMENT"),
    (-32006, Some("INVALID_AGENT_RESPONSE"), 502, "INTERNAL"),
    (EXTENDED_CARD_NOT_CONFIGURED, Some("EXTENDED_AGENT_CARD_NOT_CONFIGURED"), 400, "FAILED_PRECONDITION"),
    (-32008, Some("EXTENSION_SUPPORT_REQUIRED"), 400, "FAILED_PRECONDITION"),
    (VERSION_NOT_SUPPORTED, Some("VERSION_NOT_SUPPORTED"), 400, "UNIMPLEMENTED"),
    (TASK_GENERATION_MISMATCH, Some("TASK_GENERATION_MISMATCH"), 409, "ABORTED"),
    (PARSE_ERROR, None, 400, "INVALID_ARGUMENT"),
    (INVALID_REQUEST, None, 400, "INVALID_ARGUMENT"),
    (METHOD_NOT_FOUND, None, 404, "NOT_FOUND"),
    (INVALID_PARAMS, None, 400, "INVALID_ARGUMENT"),
    (INTERNAL, None, 500, "INTERNAL"),
];

fn row(code: i64) -> (Option<&'static str>, u16, &'static str) {
    TABLE.iter().find(|r| r.0 == code).map_or((None, 500, "INTERNAL"), |r| (r.1, r.2, r.3))
}

/// The `google.rpc.ErrorInfo` an A2A-specific error carries (spec §9.5, §11.6: reason,
/// domain `a2a-protocol.org`), as the one-element details list every binding sends.
fn details(code: i64) -> Option<serde_json::Value> {
    row(code).0.map(|reason| {
        serde_json::json!([{
            "@type": "type.googleapis.com/google.rpc.ErrorInfo",
            "reason": reason,
            "domain": "a2a-protocol.org",
        }])
    })
}

/// A JSON-RPC error object; an A2A-specific error carries its ErrorInfo in `data`.
pub fn error_object(code: i64, message: &str) -> serde_json::Value {
    let mut error = serde_json::json!({"code": code, "message": message});
    if let Some(details) = details(code) {
        error["data"] = details;
    }
    error
}

/// The HTTP+JSON binding's error (spec §11.6, AIP-193): its HTTP status, and the body
/// `{"error": {code, status, message, details}}`.
pub fn http_error(code: i64, message: &str) -> (u16, serde_json::Value) {
    let (_, http, status) = row(code);
    let mut error = serde_json::json!({"code": http, "status": status, "message": message});
    if let Some(details) = details(code) {
        error["details"] = details;
    }
    (http, serde_json::json!({"error": error}))
}

/// The gRPC status name of an error (spec §5.4's table).
pub fn grpc_status(code: i64) -> &'static str {
    row(code).2
}

/// The HTTP+JSON binding's form of a JSON-RPC error object (its ErrorInfo, metadata
/// included, carried over).
pub fn http_error_of(error: &serde_json::Value) -> (u16, serde_json::Value) {
    let code = error["code"].as_i64().unwrap_or(INTERNAL);
    let (status, mut body) = http_error(code, error["message"].as_str().unwrap_or_default());
    if let Some(details) = error.get("data").filter(|d| d.is_array()) {
        body["error"]["details"] = details.clone();
    }
    (status, body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grpc_and_aborted_statuses_follow_the_table() {
        assert_eq!(grpc_status(TASK_NOT_FOUND), "NOT_FOUND");
        assert_eq!(grpc_status(TASK_GENERATION_MISMATCH), "ABORTED");
        assert_eq!(grpc_status(12345), "INTERNAL");
    }

    #[test]
    fn every_a2a_error_has_its_reason_and_the_specs_http_status() {
        // spec §5.4: TaskNotFound 404, TaskNotCancelable 409, ContentTypeNotSupported 415,
        // InvalidAgentResponse 502, the rest of A2A's own 400
        let (status, body) = http_error(TASK_NOT_FOUND, "no task 'x'");
        assert_eq!(status, 404);
        assert_eq!(body["error"]["status"], "NOT_FOUND");
        assert_eq!(body["error"]["details"][0]["reason"], "TASK_NOT_FOUND");
        assert_eq!(body["error"]["details"][0]["domain"], "a2a-protocol.org");
        assert_eq!(http_error(TASK_NOT_CANCELABLE, "").0, 409);
        assert_eq!(http_error(CONTENT_TYPE_NOT_SUPPORTED, "").0, 415);
        assert_eq!(http_error(-32006, "").0, 502);
        // A2A v1.1 draft: a stale ifGenerationMatch is 409 ABORTED, its metadata kept
        let mut e = error_object(TASK_GENERATION_MISMATCH, "stale");
        e["data"][0]["metadata"] = serde_json::json!({"currentGeneration": "5"});
        let (status, body) = http_error_of(&e);
        assert_eq!((status, body["error"]["status"].as_str()), (409, Some("ABORTED")));
        assert_eq!(body["error"]["details"][0]["metadata"]["currentGeneration"], "5");
        for code in [-32003, UNSUPPORTED_OPERATION, -32007, -32008, VERSION_NOT_SUPPORTED, INVALID_PARAMS] {
            assert_eq!(http_error(code, "").0, 400, "{code}");
        }
        // JSON-RPC's own errors carry no ErrorInfo
        assert!(http_error(INVALID_PARAMS, "").1["error"].get("details").is_none());
        assert!(error_object(INVALID_PARAMS, "").get("data").is_none());
        assert_eq!(error_object(TASK_NOT_FOUND, "")["data"][0]["reason"], "TASK_NOT_FOUND");
    }
}
