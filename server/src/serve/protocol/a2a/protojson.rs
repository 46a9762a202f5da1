//! ProtoJSON field names: A2A's JSON is the ProtoJSON form of its `.proto` messages, whose
//! parsers accept a field by its lowerCamelCase JSON name or by its original snake_case name
//! (`contextId` or `context_id`). The methods read the JSON names; [`json_names`] rewrites a
//! request's params to them once, at the edge. Free-form maps — `metadata` (a `Struct`) and a
//! part's `data` (a `Value`) — keep their keys as sent.

use serde_json::{Map, Value};

/// Fields whose value is a free-form map: their keys are the sender's, never field names.
const FREE_FORM: [&str; 2] = ["metadata", "data"];

/// `params` with every field under its JSON name; `Err` names a field sent under both names.
pub fn json_names(params: Map<String, Value>) -> Result<Map<String, Value>, String> {
    object(params, "")
}

fn object(fields: Map<String, Value>, at: &str) -> Result<Map<String, Value>, String> {
    let mut out = Map::new();
    for (name, value) in fields {
        let json = lower_camel(&name);
        if out.contains_key(&json) {
            return Err(format!("{at}{name}"));
        }
        let value = match value {
            v @ (Value::Object(_) | Value::Array(_)) if !FREE_FORM.contains(&json.as_str()) => {
                nested(v, &format!("{at}{json}."))?
            }
            v => v,
        };
        out.insert(json, value);
    }
    Ok(out)
}

fn nested(value: Value, at: &str) -> Result<Value, String> {
    Ok(match value {
        Value::Object(m) => Value::Object(object(m, at)?),
        Value::Array(items) => Value::Array(items.into_iter().map(|v| nested(v, at)).collect::<Result<_, _>>()?),
        other => other,
    })
}

/// `history_length` → `historyLength` (protoc's JSON name: each `_` dropped, the next letter
/// raised); a name without `_` is already one.
pub(super) fn lower_camel(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut raise = false;
    for c in name.chars() {
        if c == '_' {
            raise = true;
        } else if raise {
            out.extend(c.to_uppercase());
            raise = false;
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn names(v: Value) -> Result<Value, String> {
        json_names(v.as_object().cloned().unwrap_or_default()).map(Value::Object)
    }

    #[test]
    fn snake_case_fields_read_as_their_json_names_and_free_form_maps_stay() {
        let sent = json!({
            "message": {"message_id": "m1", "context_id": "c1", "task_id": "t1",
                        "parts": [{"text": "hi", "media_type": "text/plain", "data": {"my_key": 1}}],
                        "metadata": {"trace_id": "x"}},
            "configuration": {"history_length": 2, "return_immediately": true,
                              "task_push_notification_config": {"url": "http://h", "authentication": {"scheme": "Bearer"}}},
            "page_size": 5, "pageToken": "3",
        });
        let read = names(sent).expect("one name per field");
        assert_eq!(
            read,
            json!({
                "message": {"messageId": "m1", "contextId": "c1", "taskId": "t1",
                            "parts": [{"text": "hi", "mediaType": "text/plain", "data": {"my_key": 1}}],
                            "metadata": {"trace_id": "x"}},
                "configuration": {"historyLength": 2, "returnImmediately": true,
                                  "taskPushNotificationConfig": {"url": "http://h", "authentication": {"scheme": "Bearer"}}},
                "pageSize": 5, "pageToken": "3",
            })
        );
    }

    #[test]
    fn a_field_under_both_names_is_refused_by_name() {
        assert_eq!(names(json!({"contextId": "a", "context_id": "b"})), Err("context_id".to_string()));
        assert_eq!(names(json!({"message": {"taskId": "a", "task_id": "b"}})), Err("message.task_id".to_string()));
    }
}
