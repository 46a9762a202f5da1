//! One thread: what the host knows of it (`get_thread`), its mailbox (mail in and out, the
//! Genesis-style `mailbox_action` messages), and the handoffs it started.
use crate::route::{Route, View};
use crate::ui::{self, kv_table};
use leptos::prelude::*;
use serde_json::json;

/// The thread view.
#[component]
pub fn ThreadView() -> impl IntoView {
    let ui = ui::ui();
    let data = Memo::new(move |_| {
        let (at, id) = ui.route.with(|r| (r.at, r.id.clone()));
        let id = id?;
        ui.with_session(|s| {
            s.with_engine(at, |e, now| {
                let st = e.state();
                let info = e.preview_host("get_thread", json!({"thread_id": id}), now).unwrap_or_else(|e| e.to_json());
                let mut mail: Vec<_> = st
                    .messages
                    .values()
                    .filter(|m| m.to_thread_id == id || m.from_thread_id == id)
                    .map(|m| {
                        let dir = if m.to_thread_id == id { "in" } else { "out" };
                        (
                            m.seq,
                            dir,
                            format!("{} → {}", m.from_bot_id, m.to_bot_id),
                            m.subject.clone().unwrap_or_default(),
                            m.body.clone(),
                            format!("{:?}", m.state).to_lowercase(),
                            m.system,
                        )
                    })
                    .collect();
                mail.sort_by_key(|m| m.0);
                let mut started: Vec<_> = st
                    .handoffs_from(&id)
                    .map(|h| {
                        (
                            h.seq,
                            h.handoff_id.clone(),
                            h.spec.thread_title.clone().unwrap_or_else(|| h.spec.task.clone()),
                            h.status.as_str(),
                        )
                    })
                    .collect();
                started.sort();
                (id.clone(), info, mail, started)
            })
        })
    });
    view! {
        <section class="pane thread" data-testid="thread-view">
            {move || {
                let ws = ui.route.with(|r| r.ws.clone()).unwrap_or_default();
                match data.get() {
                    None => view! { <p class="empty">"No thread selected."</p> }.into_any(),
                    Some((id, info, mail, started)) => view! {
                        <h2>"Thread "<code>{id.clone()}</code></h2>
                        <p><a href=Route::of(&ws, View::Act).with_id("mailbox_action").with_sub(id.clone()).to_hash()>"Act as this thread"</a></p>
                        <h3>"Mailbox"</h3>
                        {if mail.is_empty() { view! { <p class="empty">"No mail in this thread yet."</p> }.into_any() } else {
                            view! { <ul class="mail" data-testid="mailbox">{mail.into_iter().map(|(_, dir, who, subject, body, state, system)| view! {
                                <li class=dir>
                                    <b>{who}</b>" "<i>{subject}</i>" "<span class="tag">{dir}" · "{state}{system.then_some(" · system")}</span>
                                    <pre>{body}</pre>
                                </li>
                            }).collect_view()}</ul> }.into_any()
                        }}
                        <h3>"Handoffs it started"</h3>
                        <ul>{started.into_iter().map(|(_, h, label, status)| view! {
                            <li><a href=Route::of(&ws, View::Chains).with_id(h.clone()).to_hash()>{label}</a>" · "{status}</li>
                        }).collect_view()}</ul>
                        <h3>"get_thread"</h3>
                        {kv_table(&info)}
                    }.into_any(),
                }
            }}
        </section>
    }
}
