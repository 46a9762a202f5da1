//! One thread for a person: whose it is, its mailbox as a conversation (who wrote to whom, when,
//! where each message stands) and the handoffs it started, in core's words; what the host's
//! `get_thread` answers stays one click away.
use crate::route::{Route, View};
use crate::ui::{self, copy_id, json_tree, kv_table, status_badge, when};
use baton_core::view::{agent_name, words, Category};
use baton_core::{Status, Timestamp};
use leptos::prelude::*;
use serde_json::{json, Value};

/// One mailbox message, for a person.
#[derive(Clone, PartialEq)]
struct Mail {
    seq: u64,
    incoming: bool,
    from: String,
    to: String,
    subject: String,
    body: String,
    state: &'static str,
    system: bool,
    sent: Timestamp,
    /// For Baton's own notice of a handoff's end: the handoff's label, status, result and
    /// outputs, read from the handoff it tells of (never parsed from the notice's text).
    notice: Option<(String, Status, Option<String>, Option<Value>)>,
}

/// The thread view.
#[component]
pub fn ThreadView() -> impl IntoView {
    let ui = ui::ui();
    let data = Memo::new(move |_| {
        let (at, id) = ui.route.with(|r| (r.at, r.id.clone()));
        let id = id?;
        ui.with_engine(at, |e, now| {
            let st = e.state();
            let info = e.preview_host("get_thread", json!({"thread_id": id}), now).unwrap_or_else(|e| e.to_json());
            let thread = st.threads.get(id.as_str());
            let title = thread.and_then(|t| t.title.clone()).unwrap_or_else(|| words::short_id(&id));
            let owner = thread.map(|t| agent_name(st, &t.bot_id)).unwrap_or_default();
            // Baton's notices of handoffs this thread started, by message.
            let notices: std::collections::HashMap<String, _> = st
                .handoffs_from(&id)
                .filter_map(|h| {
                    let label = h.spec.thread_title.clone().unwrap_or_else(|| h.spec.task.clone());
                    let outputs = h.outputs.clone().map(Value::Object);
                    h.notice_message_id.as_ref().map(|m| (m.to_string(), (label, h.status, h.result.clone(), outputs)))
                })
                .collect();
            let mut mail: Vec<Mail> = st
                .messages
                .values()
                .filter(|m| m.to_thread_id == id || m.from_thread_id == id)
                .map(|m| Mail {
                    seq: m.seq,
                    incoming: m.to_thread_id == id,
                    from: agent_name(st, &m.from_bot_id),
                    to: agent_name(st, &m.to_bot_id),
                    subject: m.subject.clone().unwrap_or_default(),
                    body: m.body.clone(),
                    state: words::mail_state(m.state),
                    system: m.system,
                    sent: m.sent_at,
                    notice: if m.system { notices.get(m.message_id.as_str()).cloned() } else { None },
                })
                .collect();
            mail.sort_by_key(|m| m.seq);
            let mut started: Vec<_> = st
                .handoffs_from(&id)
                .map(|h| {
                    (
                        h.seq,
                        h.handoff_id.clone(),
                        h.spec.thread_title.clone().unwrap_or_else(|| h.spec.task.clone()),
                        agent_name(st, &h.child_bot_id),
                        h.status,
                    )
                })
                .collect();
            started.sort_by_key(|s| s.0);
            (id.clone(), title, owner, now, info, mail, started)
        })
    });
    view! {
        <section class="pane thread" data-testid="thread-view">
            {move || {
                let ws = ui.route.with(|r| r.ws.clone()).unwrap_or_default();
                match data.get() {
                    None => view! { <p class="empty">"No thread selected."</p> }.into_any(),
                    Some((id, title, owner, now, info, mail, started)) => view! {
                        <h2>{title}</h2>
                        <p class="who">{format!("{owner}'s thread · ")}<span title=id.clone()>{words::short_id(&id)}</span>{copy_id(id.clone())}
                            " · "<a href=Route::of(&ws, View::Act).with_id("mailbox_action").with_sub(id.clone()).to_hash()>"Act as this thread"</a></p>
                        <h3>"Mailbox"</h3>
                        {if mail.is_empty() { view! { <p class="empty">"No mail in this thread yet."</p> }.into_any() } else {
                            view! { <ul class="mail" data-testid="mailbox">{mail.into_iter().map(|m| view! {
                                <li class=if m.incoming { "in" } else { "out" }>
                                    <b>{m.from}</b>" → "{m.to}" · "{when(now, m.sent)}
                                    {(!m.subject.is_empty()).then(|| view! { " · "<i>{m.subject}</i> })}
                                    " "<span class="tag">{if m.incoming { "received" } else { "sent" }}" · "{m.state}{m.system.then_some(" · from Baton")}</span>
                                    {match m.notice {
                                        // Baton's notice, for a person: what ended and how; its text as the model reads it folded.
                                        Some((label, status, result, outputs)) => view! {
                                            <p class="notice">{{ let (said, meaning) = words::status(status.as_str()); format!("Baton told the thread that “{label}” is {said}: {meaning}") }}</p>
                                            {result.map(|r| view! { <pre class="box result">{r}</pre> })}
                                            {outputs.map(|o| view! { <div class="outputs"><b>"Outputs"</b>{json_tree(&o)}</div> })}
                                            <details class="as-model"><summary>"The notice as the model reads it"</summary><pre>{m.body}</pre></details>
                                        }.into_any(),
                                        None => view! { <pre>{m.body}</pre> }.into_any(),
                                    }}
                                </li>
                            }).collect_view()}</ul> }.into_any()
                        }}
                        <h3>"Handoffs it started"</h3>
                        {if started.is_empty() { view! { <p class="empty">"None."</p> }.into_any() } else {
                            view! { <ul>{started.into_iter().map(|(_, h, label, to, status)| {
                                let cat = Category::of(Some(status));
                                let (said, meaning) = words::status(status.as_str());
                                view! {
                                    <li><a href=Route::of(&ws, View::Chains).with_id(h.clone()).to_hash()>{label}</a>{format!(" · to {to} · ")}
                                        {status_badge(cat, said, meaning)}</li>
                                }
                            }).collect_view()}</ul> }.into_any()
                        }}
                        <details class="as-model" data-testid="thread-as-host">
                            <summary>"As the host sees it (get_thread)"</summary>
                            {kv_table(&info)}
                        </details>
                    }.into_any(),
                }
            }}
        </section>
    }
}
