//! `historyLength` (A2A 1.0 §3.2.4): how many of a task's most recent history messages an
//! answer carries — all when it is not given, none (the field left out) at 0. Read from the
//! request before anything runs, so a bad value changes nothing; applied to every task an
//! answer holds.

use super::code;
use super::request::Request;
use serde_json::Value;

/// The request's `historyLength` (`configuration.historyLength` for `SendMessage`); `Err`
/// names the field when it is not a non-negative integer.
pub fn length(req: &Request) -> Result<Option<usize>, (i64, String)> {
    let (value, field) = match req.method.as_str() {
        "SendMessage" => {
            (req.params.get("configuration").and_then(|c| c.get("historyLength")), "configuration.historyLength")
        }
        "GetTask" | "ListTasks" => (req.params.get("historyLength"), "historyLength"),
        _ => return Ok(None),
    };
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(v) => match v.as_u64().and_then(|n| usize::try_from(n).ok()) {
            Some(n) => Ok(Some(n)),
            None => Err((code::INVALID_PARAMS, format!("{field}: must be a non-negative integer, got {v}"))),
        },
    }
}

/// Keeps the last `n` history messages of each task in `answer` (a task, `{task}`, or
/// `{tasks: [...]}`); at 0 the field goes.
pub fn limit(answer: &mut Value, n: usize) {
    let tasks: Vec<&mut Value> = if let Some(list) = answer.get_mut("tasks").and_then(Value::as_array_mut) {
        list.iter_mut().collect()
    } else if answer.get("task").is_some() {
        answer.get_mut("task").into_iter().collect()
    } else {
        vec![answer]
    };
    for task in tasks {
        let Some(t) = task.as_object_mut() else { continue };
        if n == 0 {
            t.remove("history");
        } else if let Some(Value::Array(h)) = t.get_mut("history") {
            let cut = h.len().saturating_sub(n);
            h.drain(..cut);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn req(method: &str, params: Value) -> Request {
        Request {
            agent: "a".into(),
            caller: "c".into(),
            method: method.into(),
            params: params.as_object().cloned().unwrap_or_default(),
            fixture: false,
            new_context: String::new(),
            follow: None,
        }
    }

    #[test]
    fn the_length_is_read_where_each_method_carries_it_and_a_bad_one_is_named() {
        assert_eq!(length(&req("GetTask", json!({"id": "t"}))), Ok(None));
        assert_eq!(length(&req("GetTask", json!({"historyLength": 2}))), Ok(Some(2)));
        assert_eq!(length(&req("SendMessage", json!({"configuration": {"historyLength": 0}}))), Ok(Some(0)));
        let bad = length(&req("ListTasks", json!({"historyLength": -5}))).expect_err("negative");
        assert_eq!(bad.0, code::INVALID_PARAMS);
        assert!(bad.1.starts_with("historyLength:"), "{}", bad.1);
        let bad = length(&req("SendMessage", json!({"configuration": {"historyLength": "3"}}))).expect_err("a string");
        assert!(bad.1.starts_with("configuration.historyLength:"), "{}", bad.1);
    }

    #[test]
    fn the_last_messages_are_kept_and_none_leaves_the_field_out() {
        let task =
            |n: usize| json!({"id": "t", "history": (0..n).map(|i| json!({"messageId": i})).collect::<Vec<_>>()});
        let mut one = task(3);
        limit(&mut one, 2);
        assert_eq!(one["history"], json!([{"messageId": 1}, {"messageId": 2}]));
        let mut wrapped = json!({"task": task(3)});
        limit(&mut wrapped, 0);
        assert!(wrapped["task"].get("history").is_none());
        let mut listed = json!({"tasks": [task(1), task(4)], "nextPageToken": ""});
        limit(&mut listed, 5);
        assert_eq!(listed["tasks"][1]["history"].as_array().map(Vec::len), Some(4));
    }
}
