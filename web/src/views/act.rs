//! Act as any agent: a form for every tool, built from its JSON Schema (defaults filled in,
//! descriptions as hints), and for every host input (what a host reports: register an agent,
//! open a thread, a turn started…), so an empty workspace can be driven by hand. The engine
//! validates; its error is shown next to the field it names.
//!
//! The schemas are not in the page's wasm: the form fetches `parameters.json` (copied beside
//! the page from `core/src/surface/`, which the core's full build generates and a test keeps
//! equal to it) the first time it opens, and keeps it for the page's life.
use crate::route::{Route, View};
use crate::ui::{self, error_field, error_text, kv_table};
use baton_core::Caller;
use leptos::prelude::*;
use serde::Deserialize;
use serde_json::{Map, Value};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::sync::Arc;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// The parameter schemas: `{"tools": {name: schema}, "host_inputs": {name: schema}}`.
type Schemas = Arc<Map<String, Value>>;

thread_local! {
    /// The schemas once fetched (the page's only thread).
    static SCHEMAS: RefCell<Option<Schemas>> = const { RefCell::new(None) };
}

/// Fetches and reads `parameters.json`.
async fn fetch_schemas() -> Result<Schemas, String> {
    let window = web_sys::window().ok_or("no window")?;
    let resp: web_sys::Response = JsFuture::from(window.fetch_with_str("parameters.json"))
        .await
        .map_err(|e| crate::remote::js_text(&e))?
        .dyn_into()
        .map_err(|_| "fetch did not give a Response".to_string())?;
    if !resp.ok() {
        return Err(format!("HTTP {}", resp.status()));
    }
    let text = JsFuture::from(resp.text().map_err(|e| crate::remote::js_text(&e))?)
        .await
        .map_err(|e| crate::remote::js_text(&e))?
        .as_string()
        .ok_or("the answer is not text")?;
    serde_json::from_str(&text).map(Arc::new).map_err(|e| e.to_string())
}

/// One form: a tool, or a host input.
#[derive(Clone)]
struct Form {
    /// The tool's name, or `host:<input>`.
    name: String,
    /// The host input it sends (`None`: a tool call).
    input: Option<&'static str>,
    description: &'static str,
}

impl Form {
    /// Its parameters, from the schemas (none before they are fetched).
    fn params(&self, schemas: Option<&Schemas>) -> Params {
        let (section, name) = match self.input {
            Some(input) => ("host_inputs", input),
            None => ("tools", self.name.as_str()),
        };
        schemas.and_then(|s| s.get(section)?.get(name).cloned()).map(Params::of).unwrap_or_default()
    }
}

/// The top of a parameter schema: each parameter's own schema, and which are required.
#[derive(Clone, Default, Deserialize)]
struct Params {
    #[serde(default)]
    properties: Map<String, Value>,
    #[serde(default)]
    required: Vec<String>,
}

impl Params {
    fn of(schema: Value) -> Params {
        serde_json::from_value(schema).unwrap_or_default()
    }
}

/// Every form: the tools, then the host inputs.
fn forms() -> Vec<Form> {
    let tools = baton_core::surface::TOOLS.iter().map(|t| Form {
        name: t.name.to_string(),
        input: None,
        description: t.description,
    });
    let inputs = baton_core::HOST_INPUTS.iter().map(|h| Form {
        name: format!("host:{}", h.name),
        input: Some(h.name),
        description: h.description,
    });
    tools.chain(inputs).collect()
}

/// The description a parameter's schema gives.
fn described(schema: &Value) -> String {
    schema.get("description").and_then(Value::as_str).unwrap_or("—").to_string()
}

/// The fixed values a schema allows (`enum`, `const`, through `anyOf`/`oneOf`/`allOf`).
fn choices(schema: &Value) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    if let Some(e) = schema.get("enum").and_then(Value::as_array) {
        out.extend(e.iter().filter_map(|v| v.as_str().map(str::to_string)));
    }
    if let Some(c) = schema.get("const").and_then(Value::as_str) {
        out.push(c.to_string());
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        for s in schema.get(key).and_then(Value::as_array).into_iter().flatten() {
            out.extend(choices(s));
        }
    }
    out
}

/// The kind of input a schema asks for.
fn kind(schema: &Value) -> (&'static str, Vec<String>) {
    let values = choices(schema);
    if !values.is_empty() {
        return ("enum", values);
    }
    let types: Vec<&str> = match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).collect(),
        _ => vec![],
    };
    let t = types.into_iter().find(|t| *t != "null").unwrap_or("json");
    match t {
        "string" => ("string", vec![]),
        "integer" | "number" => ("number", vec![]),
        "boolean" => ("boolean", vec![]),
        _ => ("json", vec![]),
    }
}

/// The form's starting text: the schema's default (JSON text for JSON inputs).
fn initial(schema: &Value) -> String {
    match (schema.get("default"), kind(schema).0) {
        (None | Some(Value::Null), _) => String::new(),
        (Some(Value::String(s)), "string" | "enum") => s.clone(),
        (Some(v), _) => v.to_string(),
    }
}

/// The act view.
#[component]
pub fn Act() -> impl IntoView {
    let ui = ui::ui();
    let defs = StoredValue::new(forms());
    let schemas = RwSignal::new(SCHEMAS.with_borrow(Clone::clone));
    let form = move |name: &str| defs.with_value(|d| d.iter().find(|f| f.name == name).cloned());
    // A form's parameters (tracked: they arrive with the schemas).
    let params = move |name: &str| form(name).map(|f| schemas.with(|s| f.params(s.as_ref()))).unwrap_or_default();
    let tool = move || ui.route.with(|r| r.id.clone()).unwrap_or_else(|| "handoff".into());
    let values = RwSignal::new(BTreeMap::<String, String>::new());
    let as_thread = RwSignal::new(String::new());
    let as_handle = RwSignal::new(String::new());
    let field_error = RwSignal::new(None::<(String, String)>);
    let form_error = RwSignal::new(None::<String>);
    let result = RwSignal::new(None::<Value>);
    if schemas.with_untracked(Option::is_none) {
        leptos::task::spawn_local(async move {
            match fetch_schemas().await {
                Ok(s) => {
                    SCHEMAS.with_borrow_mut(|c| *c = Some(s.clone()));
                    schemas.try_set(Some(s));
                }
                Err(e) => {
                    form_error.try_set(Some(format!("the forms' parameters (parameters.json) did not load: {e}")));
                }
            }
        });
    }
    // Defaults whenever the tool changes; a route's second part preselects the calling thread.
    Effect::new(move |_| {
        let t = tool();
        let mut v = BTreeMap::new();
        for (k, s) in params(&t).properties {
            v.insert(k, initial(&s));
        }
        values.set(v);
        field_error.set(None);
        form_error.set(None);
        result.set(None);
        if let Some(t) = ui.route.with_untracked(|r| r.sub.clone()) {
            as_thread.set(t);
        }
    });
    let callers = Memo::new(move |_| {
        ui.with_records(|s| {
            s.with_engine(None, |e, _| {
                let st = e.state();
                let mut threads: Vec<_> = st
                    .threads
                    .values()
                    .filter(|t| t.deleted_at.is_none())
                    .map(|t| {
                        (
                            t.seq,
                            t.thread_id.to_string(),
                            format!("{} · {} · {}", t.thread_id, t.bot_id, t.title.clone().unwrap_or_default()),
                        )
                    })
                    .collect();
                threads.sort();
                let handles: Vec<_> = st.teammates.values().map(|t| (t.handle.clone(), t.name.clone())).collect();
                (threads.into_iter().map(|(_, id, label)| (id, label)).collect::<Vec<_>>(), handles)
            })
        })
        .unwrap_or_default()
    });
    let submit = move |_| {
        let t = tool();
        let Some(f) = form(&t) else { return };
        let props = params(&t).properties;
        let mut args = Map::new();
        field_error.set(None);
        form_error.set(None);
        for (k, text) in values.get_untracked() {
            if text.trim().is_empty() {
                continue;
            }
            let Some(s) = props.get(&k) else { continue };
            let v = match kind(s).0 {
                "string" | "enum" => Value::String(text),
                "boolean" => Value::Bool(text == "true"),
                _ => match serde_json::from_str(&text) {
                    Ok(v) => v,
                    Err(e) => {
                        field_error.set(Some((k.clone(), format!("not valid JSON: {e}"))));
                        return;
                    }
                },
            };
            args.insert(k, v);
        }
        let th = as_thread.get_untracked();
        let handle = as_handle.get_untracked();
        let caller = if !handle.is_empty() {
            Caller::teammate(&handle)
        } else {
            let bot = ui
                .current()
                .and_then(|s| s.engine().state().threads.get(th.as_str()).map(|t| t.bot_id.clone()))
                .unwrap_or_default();
            Caller::new(&th, &bot)
        };
        let Some(s) = ui.current() else { return };
        let host = f.input;
        ui.spawn_action(async move {
            let r = match host {
                Some(input) => s.host(input, Value::Object(args)).await,
                None => s.call(&t, Value::Object(args), caller).await,
            };
            match r {
                Ok(v) => result.set(Some(v)),
                Err(e) => {
                    let msg = error_text(&e);
                    match error_field(&e) {
                        Some(f) => field_error.set(Some((f, msg))),
                        None => form_error.set(Some(msg)),
                    }
                }
            }
            Ok(())
        });
    };
    let error_for = move |name: &str| {
        field_error.with(|fe| {
            fe.as_ref()
                .filter(|(f, _)| f == name || f.starts_with(&format!("{name}.")) || f.starts_with(&format!("{name}[")))
                .map(|(_, m)| m.clone())
        })
    };
    view! {
        <section class="pane act" data-testid="act">
            <div class="row-form">
                <label>"Tool "
                    <select data-testid="tool-select" on:change=move |ev| {
                        let r = ui.route.get_untracked();
                        if let Some(ws) = r.ws { ui.go(&Route::of(&ws, View::Act).with_id(event_target_value(&ev))) }
                    } prop:value=tool>
                        <optgroup label="Tools (as an agent or teammate)">
                            {defs.with_value(|d| d.iter().filter(|f| f.input.is_none()).map(|f| {
                                let n = f.name.clone();
                                view! { <option value=n.clone()>{n.clone()}</option> }
                            }).collect_view())}
                        </optgroup>
                        <optgroup label="Host inputs (what the host reports)">
                            {defs.with_value(|d| d.iter().filter(|f| f.input.is_some()).map(|f| {
                                let n = f.name.clone();
                                view! { <option value=n.clone()>{n.clone()}</option> }
                            }).collect_view())}
                        </optgroup>
                    </select>
                </label>
                <label class:hidden=move || tool().starts_with("host:")>"as thread "
                    <select data-testid="as-thread" on:change=move |ev| { as_thread.set(event_target_value(&ev)); as_handle.set(String::new()) } prop:value=move || as_thread.get()>
                        <option value="">"—"</option>
                        {move || callers.get().0.into_iter().map(|(id, label)| view! { <option value=id>{label}</option> }).collect_view()}
                    </select>
                </label>
                <label class:hidden=move || tool().starts_with("host:")>"or teammate "
                    <select data-testid="as-handle" on:change=move |ev| as_handle.set(event_target_value(&ev)) prop:value=move || as_handle.get()>
                        <option value="">"—"</option>
                        {move || callers.get().1.into_iter().map(|(h, name)| view! { <option value=h.clone()>{format!("{name} ({h})")}</option> }).collect_view()}
                    </select>
                </label>
                {move || error_for("caller").map(|m| view! { <p class="error field-error" data-field="caller">{m}</p> })}
            </div>
            <p class="desc">{move || form(&tool()).map(|f| f.description)}</p>
            <form on:submit=move |ev| { ev.prevent_default(); submit(()) }>
                {move || {
                    let t = tool();
                    let Params { properties: props, required } = params(&t);
                    props.into_iter().map(|(name, s)| {
                        let (k, options) = kind(&s);
                        let req = required.contains(&name);
                        let n1 = name.clone();
                        let get = move || values.with(|v| v.get(&n1).cloned().unwrap_or_default());
                        let n2 = name.clone();
                        let set = move |v: String| values.update(|m| { m.insert(n2.clone(), v); });
                        let n3 = name.clone();
                        let input = match k {
                            "enum" => view! {
                                <select name=name.clone() on:change=move |ev| set(event_target_value(&ev)) prop:value=get>
                                    <option value="">"—"</option>
                                    {options.into_iter().map(|o| view! { <option value=o.clone()>{o.clone()}</option> }).collect_view()}
                                </select>
                            }.into_any(),
                            "boolean" => view! {
                                <select name=name.clone() on:change=move |ev| set(event_target_value(&ev)) prop:value=get>
                                    <option value="">"—"</option><option value="true">"true"</option><option value="false">"false"</option>
                                </select>
                            }.into_any(),
                            "number" => view! { <input type="number" name=name.clone() prop:value=get on:input=move |ev| set(event_target_value(&ev))/> }.into_any(),
                            "string" => view! { <textarea rows="2" name=name.clone() prop:value=get on:input=move |ev| set(event_target_value(&ev))></textarea> }.into_any(),
                            _ => view! { <textarea rows="3" class="json" name=name.clone() placeholder="JSON" prop:value=get on:input=move |ev| set(event_target_value(&ev))></textarea> }.into_any(),
                        };
                        view! {
                            <div class="field">
                                <label title=described(&s)>{name.clone()}{req.then_some(" *")}</label>
                                {input}
                                <small>{described(&s)}</small>
                                {move || error_for(&n3).map(|m| view! { <p class="error field-error" data-field=n3.clone()>{m}</p> })}
                            </div>
                        }
                    }).collect_view()
                }}
                <button type="submit" class="primary" data-testid="act-submit">"Call"</button>
            </form>
            {move || form_error.get().map(|m| view! { <p class="error" role="alert" data-testid="act-error">{m}</p> })}
            {move || field_error.get().map(|(f, m)| view! { <p class="hint">{format!("{f}: {m}")}</p> })}
            {move || result.get().map(|v| view! { <div class="output" data-testid="act-result"><h3>"Result"</h3>{kv_table(&v)}</div> })}
        </section>
    }
}
