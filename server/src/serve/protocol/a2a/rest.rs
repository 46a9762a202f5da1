//! The HTTP+JSON binding (A2A 1.0 §11): the same operations as JSON-RPC at REST paths under
//! the agent's URL — `POST message:send`, `GET tasks/{id}`, `POST tasks/{id}:cancel`, … — each
//! optionally after the tenant (`/{tenant}/tasks/…`). Parameters come from the path, the query
//! (GET and DELETE: camelCase names, numbers and booleans as text) and the body (POST, a JSON
//! object); they reach the same [`call`] as JSON-RPC's, so both bindings run the same commands
//! on the same writer. Errors are AIP-193 bodies under the spec's HTTP status (§11.6).
use super::http::{
    base, call, caller, generations_asked, json_body, sse, version, with_extension, Call, Refused, Reply,
};
use super::{code, protojson};
use crate::serve::app::App;
use axum::body::Body;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value};
use std::sync::Arc;

/// An operation's route: its verb, its path's segments after the tenant (`{}` takes a value
/// into the named parameter; a segment `{}:x` a value followed by `:x`), and its A2A method.
struct Route {
    verb: &'static str,
    path: &'static [&'static str],
    method: &'static str,
    /// The query parameters it takes (GET and DELETE); anything else is refused by name.
    query: &'static [&'static str],
}

const LIST_QUERY: [&str; 7] =
    ["contextId", "status", "pageSize", "pageToken", "historyLength", "statusTimestampAfter", "includeArtifacts"];

/// Spec §11.3, one row per operation (`SubscribeToTask` also under `GET`, as `a2a.proto`'s
/// HTTP annotation has it).
const ROUTES: [Route; 12] = [
    Route { verb: "POST", path: &["message:send"], method: "SendMessage", query: &[] },
    Route { verb: "POST", path: &["message:stream"], method: "SendStreamingMessage", query: &[] },
    Route { verb: "GET", path: &["tasks"], method: "ListTasks", query: &LIST_QUERY },
    Route { verb: "GET", path: &["tasks", "{id}"], method: "GetTask", query: &["historyLength", "currentGeneration"] },
    Route { verb: "POST", path: &["tasks", "{id}:cancel"], method: "CancelTask", query: &[] },
    Route { verb: "POST", path: &["tasks", "{id}:subscribe"], method: "SubscribeToTask", query: &[] },
    Route { verb: "GET", path: &["tasks", "{id}:subscribe"], method: "SubscribeToTask", query: &[] },
    Route {
        verb: "POST",
        path: &["tasks", "{taskId}", "pushNotificationConfigs"],
        method: "CreateTaskPushNotificationConfig",
        query: &[],
    },
    Route {
        verb: "GET",
        path: &["tasks", "{taskId}", "pushNotificationConfigs"],
        method: "ListTaskPushNotificationConfigs",
        query: &["pageSize", "pageToken"],
    },
    Route {
        verb: "GET",
        path: &["tasks", "{taskId}", "pushNotificationConfigs", "{id}"],
        method: "GetTaskPushNotificationConfig",
        query: &[],
    },
    Route {
        verb: "DELETE",
        path: &["tasks", "{taskId}", "pushNotificationConfigs", "{id}"],
        method: "DeleteTaskPushNotificationConfig",
        query: &[],
    },
    Route { verb: "GET", path: &["extendedAgentCard"], method: "GetExtendedAgentCard", query: &[] },
];

/// The first segment of every route: what a tenant prefix is told apart from.
const FIRST: [&str; 4] = ["message:send", "message:stream", "tasks", "extendedAgentCard"];

/// Query parameters that are numbers and booleans (everything else is text).
const NUMBERS: [&str; 3] = ["pageSize", "historyLength", "currentGeneration"];
const BOOLEANS: [&str; 1] = ["includeArtifacts"];

/// Where a request went wrong before any operation ran.
#[derive(Debug, PartialEq)]
enum Miss {
    /// No operation at this path.
    Path,
    /// An operation at this path, but not under this verb (the verbs it has).
    Verb(Vec<&'static str>),
}

/// The operation at `path` (the part after the agent's URL) under `verb`, and the parameters
/// its path names (the tenant among them).
fn route(verb: &str, path: &str) -> Result<(&'static Route, Map<String, Value>), Miss> {
    let mut segments: Vec<&str> = path.trim_matches('/').split('/').collect();
    let mut params = Map::new();
    if segments.len() > 1 && !FIRST.contains(&segments[0]) {
        params.insert("tenant".into(), Value::String(segments.remove(0).to_string()));
    }
    let mut verbs = Vec::new();
    for r in &ROUTES {
        let Some(found) = matches(r.path, &segments) else { continue };
        if r.verb != verb {
            verbs.push(r.verb);
            continue;
        }
        params.extend(found);
        return Ok((r, params));
    }
    Err(if verbs.is_empty() { Miss::Path } else { Miss::Verb(verbs) })
}

/// The values a route's pattern takes from `segments`, if it fits them.
fn matches(pattern: &[&str], segments: &[&str]) -> Option<Map<String, Value>> {
    if pattern.len() != segments.len() {
        return None;
    }
    let mut found = Map::new();
    for (p, s) in pattern.iter().zip(segments) {
        match p.strip_prefix('{').and_then(|p| p.split_once('}')) {
            Some((name, suffix)) => {
                let value = s.strip_suffix(suffix)?;
                if value.is_empty() || (suffix.is_empty() && value.contains(':')) {
                    return None;
                }
                found.insert(name.to_string(), Value::String(value.to_string()));
            }
            None if p == s => {}
            None => return None,
        }
    }
    Some(found)
}

/// The query's parameters, typed (spec §11.5): numbers and booleans from their text, a task
/// state by its enum name or its short lower-case form (`working`); snake_case names as their
/// camelCase ones; a parameter the operation does not take is refused by name.
fn query(r: &Route, raw: Option<&str>) -> Result<Map<String, Value>, String> {
    let mut out = Map::new();
    for (name, value) in form_urlencoded::parse(raw.unwrap_or_default().as_bytes()) {
        let name = protojson::lower_camel(&name);
        if !r.query.contains(&name.as_str()) {
            return Err(format!("{name}: {} takes no such query parameter", r.method));
        }
        let typed = if NUMBERS.contains(&name.as_str()) {
            Value::from(value.parse::<i64>().map_err(|_| format!("{name}: '{value}' is not a whole number"))?)
        } else if BOOLEANS.contains(&name.as_str()) {
            match value.as_ref() {
                "true" => Value::Bool(true),
                "false" => Value::Bool(false),
                _ => return Err(format!("{name}: '{value}' is neither true nor false")),
            }
        } else if name == "status" && !value.starts_with("TASK_STATE_") {
            Value::String(format!("TASK_STATE_{}", value.to_uppercase()))
        } else {
            Value::String(value.into_owned())
        };
        if out.insert(name.clone(), typed).is_some() {
            return Err(format!("{name}: given more than once"));
        }
    }
    Ok(out)
}

/// An error as this binding answers it.
fn error(code: i64, message: &str) -> Response {
    let (status, body) = code::http_error(code, message);
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    (status, [("content-type", "application/json")], body.to_string()).into_response()
}

fn refused(r: Refused) -> Response {
    match r {
        Refused::A2a(code, message) => error(code, &message),
        Refused::Http(r) => *r,
    }
}

/// `/w/{workspace}/a2a/{agent}/{*rest}`: one HTTP+JSON request.
pub async fn handle(
    State(app): State<Arc<App>>,
    Path((workspace, agent, rest)): Path<(String, String, String)>,
    RawQuery(raw): RawQuery,
    verb: Method,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let caller = match caller(&app, &headers, &workspace).await {
        Ok(c) => c,
        Err(r) => return refused(r),
    };
    if let Err((code, message)) = version(&headers) {
        return error(code, &message);
    }
    let (r, mut params) = match route(verb.as_str(), &rest) {
        Ok(found) => found,
        Err(Miss::Path) => return error(code::METHOD_NOT_FOUND, &format!("no A2A operation at /{rest}")),
        Err(Miss::Verb(verbs)) => {
            let allowed = verbs.join(", ");
            let (_, body) = code::http_error(code::METHOD_NOT_FOUND, &format!("/{rest} takes {allowed}, not {verb}"));
            return (StatusCode::METHOD_NOT_ALLOWED, [("allow", allowed)], axum::Json(body)).into_response();
        }
    };
    let given = match query(r, raw.as_deref()) {
        Ok(q) => q,
        Err(message) => return error(code::INVALID_PARAMS, &message),
    };
    params.extend(given);
    if r.verb == "POST" {
        if !json_body(&headers) {
            let (_, mut body) =
                code::http_error(code::INVALID_REQUEST, "Content-Type: a request body is application/json");
            body["error"]["code"] = 415.into();
            return (StatusCode::UNSUPPORTED_MEDIA_TYPE, axum::Json(body)).into_response();
        }
        let Ok(bytes) = crate::serve::protocol::jsonrpc::read_body(body).await else {
            return error(code::INVALID_REQUEST, "the request body is too large");
        };
        if !bytes.iter().all(u8::is_ascii_whitespace) {
            let sent = match serde_json::from_slice::<Value>(&bytes) {
                Ok(Value::Object(m)) => m,
                _ => return error(code::PARSE_ERROR, "the body is not a JSON object"),
            };
            let sent = match protojson::json_names(sent) {
                Ok(m) => m,
                Err(field) => {
                    return error(
                        code::INVALID_PARAMS,
                        &format!("{field}: this field is also sent under its JSON name"),
                    )
                }
            };
            // What the path names wins nothing: a body that says otherwise is refused.
            for (name, value) in sent {
                match params.get(&name) {
                    Some(at) if *at != value && !(name == "tenant" && value == "") => {
                        return error(code::INVALID_PARAMS, &format!("{name}: the body says {value}, the path {at}"))
                    }
                    _ => {
                        params.insert(name, value);
                    }
                }
            }
        }
    }
    let resume = (r.method == "SubscribeToTask")
        .then(|| headers.get("last-event-id").and_then(|v| v.to_str().ok()).and_then(|v| v.trim().parse::<u64>().ok()))
        .flatten();
    let path = match &raw {
        Some(q) => format!("/w/{workspace}/a2a/{agent}/{rest}?{q}"),
        None => format!("/w/{workspace}/a2a/{agent}/{rest}"),
    };
    let base = base(&headers, &workspace, &agent);
    let method = r.method.to_string();
    let generations = generations_asked(&headers);
    let response =
        match call(&app, Call { workspace, agent, caller, method, params, resume, base, path, generations }).await {
            Ok(Reply::Once(v)) => match v.get("error") {
                Some(e) => {
                    let (status, body) = code::http_error_of(e);
                    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
                    (status, [("content-type", "application/json")], body.to_string()).into_response()
                }
                None => {
                    let result = v.get("result").cloned().unwrap_or(Value::Object(Map::new()));
                    (StatusCode::OK, [("content-type", "application/json")], result.to_string()).into_response()
                }
            },
            Ok(Reply::Stream(rx)) => sse(rx, |event| event.to_string()),
            Err(r) => refused(r),
        };
    with_extension(response, generations)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn at(verb: &str, path: &str) -> (&'static str, Value) {
        let (r, params) = route(verb, path).unwrap_or_else(|m| panic!("{verb} {path}: {m:?}"));
        (r.method, Value::Object(params))
    }

    #[test]
    fn every_operation_of_spec_section_11_3_is_routed_with_and_without_the_tenant() {
        assert_eq!(at("POST", "message:send"), ("SendMessage", json!({})));
        assert_eq!(at("POST", "/echo/message:stream"), ("SendStreamingMessage", json!({"tenant": "echo"})));
        assert_eq!(at("GET", "tasks"), ("ListTasks", json!({})));
        assert_eq!(at("GET", "tasks/h-1"), ("GetTask", json!({"id": "h-1"})));
        assert_eq!(at("GET", "echo/tasks/h-1"), ("GetTask", json!({"tenant": "echo", "id": "h-1"})));
        assert_eq!(at("POST", "tasks/h-1:cancel"), ("CancelTask", json!({"id": "h-1"})));
        assert_eq!(at("POST", "tasks/h-1:subscribe"), ("SubscribeToTask", json!({"id": "h-1"})));
        assert_eq!(at("GET", "tasks/h-1:subscribe"), ("SubscribeToTask", json!({"id": "h-1"})));
        assert_eq!(
            at("POST", "tasks/h-1/pushNotificationConfigs"),
            ("CreateTaskPushNotificationConfig", json!({"taskId": "h-1"}))
        );
        assert_eq!(
            at("GET", "tasks/h-1/pushNotificationConfigs"),
            ("ListTaskPushNotificationConfigs", json!({"taskId": "h-1"}))
        );
        assert_eq!(
            at("GET", "tasks/h-1/pushNotificationConfigs/c"),
            ("GetTaskPushNotificationConfig", json!({"taskId": "h-1", "id": "c"}))
        );
        assert_eq!(
            at("DELETE", "echo/tasks/h-1/pushNotificationConfigs/c"),
            ("DeleteTaskPushNotificationConfig", json!({"tenant": "echo", "taskId": "h-1", "id": "c"}))
        );
        assert_eq!(at("GET", "extendedAgentCard"), ("GetExtendedAgentCard", json!({})));
    }

    #[test]
    fn a_wrong_verb_names_the_right_ones_and_an_unknown_path_is_no_operation() {
        assert_eq!(route("DELETE", "tasks/h-1").err(), Some(Miss::Verb(vec!["GET"])));
        assert_eq!(route("GET", "message:send").err(), Some(Miss::Verb(vec!["POST"])));
        assert_eq!(route("GET", "tasks/h-1:cancel").err(), Some(Miss::Verb(vec!["POST"])));
        assert_eq!(route("POST", "tasks/h-1:frobnicate").err(), Some(Miss::Path));
        assert_eq!(route("GET", "nothing").err(), Some(Miss::Path));
        assert_eq!(route("GET", "").err(), Some(Miss::Path));
    }

    #[test]
    fn query_parameters_are_typed_and_an_unknown_one_is_refused_by_name() {
        let list = &ROUTES[2];
        let q = query(list, Some("contextId=c%201&status=working&pageSize=5&includeArtifacts=false&history_length=2"))
            .unwrap();
        assert_eq!(
            Value::Object(q),
            json!({"contextId": "c 1", "status": "TASK_STATE_WORKING", "pageSize": 5, "includeArtifacts": false, "historyLength": 2})
        );
        assert_eq!(query(list, Some("status=TASK_STATE_COMPLETED")).unwrap()["status"], json!("TASK_STATE_COMPLETED"));
        assert!(query(list, Some("pageSize=ten")).unwrap_err().starts_with("pageSize:"));
        assert!(query(list, Some("includeArtifacts=yes")).unwrap_err().starts_with("includeArtifacts:"));
        assert!(query(list, Some("colour=red")).unwrap_err().starts_with("colour:"));
        assert!(query(list, Some("pageSize=1&pageSize=2")).unwrap_err().starts_with("pageSize:"));
        assert!(query(&ROUTES[3], Some("contextId=c")).unwrap_err().starts_with("contextId:"));
    }
}
