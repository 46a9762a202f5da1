//! Mission strips: each blueprint journey's stages left to right, as `mission_strip` reports
//! them (spawned, expected or skipped, with the coding-agent badge), linked to their threads.
use crate::route::{Route, View};
use crate::ui::{self, with_session};
use leptos::prelude::*;
use serde_json::{json, Value};

/// The missions view.
#[component]
pub fn Missions() -> impl IntoView {
    let ui = ui::ui();
    let strips = Memo::new(move |_| {
        let at = ui.at.get();
        with_session(|s| {
            s.with_engine(at, |e, now| {
                let st = e.state();
                // Journey roots: threads carrying a journey whose parent carries none.
                let mut roots: Vec<_> = st
                    .threads
                    .values()
                    .filter(|t| t.journey.is_some() && t.deleted_at.is_none())
                    .filter(|t| {
                        t.parent_thread_id.as_ref().and_then(|p| st.threads.get(p)).is_none_or(|p| p.journey.is_none())
                    })
                    .map(|t| {
                        (t.seq, t.thread_id.to_string(), t.title.clone().unwrap_or_else(|| t.thread_id.to_string()))
                    })
                    .collect();
                roots.sort();
                roots
                    .into_iter()
                    .map(|(_, id, title)| {
                        let strip = e
                            .preview_host("mission_strip", json!({"thread_id": id}), now)
                            .unwrap_or_else(|e| e.to_json());
                        (id, title, strip)
                    })
                    .collect::<Vec<_>>()
            })
        })
        .unwrap_or_default()
    });
    view! {
        <section class="pane missions" data-testid="missions">
            {move || {
                let ws = ui.route.with(|r| r.ws.clone()).unwrap_or_default();
                let list = strips.get();
                if list.is_empty() {
                    return view! { <p class="empty">"No blueprint journey in this workspace yet."</p> }.into_any();
                }
                list.into_iter().map(|(id, title, strip)| {
                    let stages = strip["stages"].as_array().cloned().unwrap_or_default();
                    let journey = strip["journey"].as_str().unwrap_or("").to_string();
                    let ws = ws.clone();
                    view! {
                        <article class="strip">
                            <h2>{journey}" · "<a href=Route::of(&ws, View::Thread).with_id(id.clone()).to_hash()>{title}</a></h2>
                            {strip.get("error").map(|e| view! { <p class="error">{ui::cell(&e["message"])}</p> })}
                            <ol class="stages">
                                {stages.into_iter().map(|st: Value| {
                                    let state = st["state"].as_str().unwrap_or("expected").to_string();
                                    let thread = st["thread_id"].as_str().map(str::to_string);
                                    let link = thread.clone().map(|t| { let href = Route::of(&ws, View::Thread).with_id(t.clone()).to_hash(); view! { <a href=href>{t}</a> } });
                                    let handoff = st["handoff_id"].as_str().map(|h| view! {
                                        <a class="small" href=Route::of(&ws, View::Chains).with_id(h.to_string()).to_hash()>"handoff"</a>
                                    });
                                    view! {
                                        <li class=format!("stage {state}") data-testid="stage">
                                            <div class="name">{st["blueprint"].as_str().unwrap_or("").to_string()}</div>
                                            <div class="state">{state.clone()}{st["status"].as_str().map(|s| format!(" · {s}"))}</div>
                                            {st["coding_agent"].as_str().map(|c| view! { <span class="badge coding">{c.to_string()}</span> })}
                                            <div>{link}" "{handoff}</div>
                                        </li>
                                    }
                                }).collect_view()}
                            </ol>
                        </article>
                    }
                }).collect_view().into_any()
            }}
        </section>
    }
}
