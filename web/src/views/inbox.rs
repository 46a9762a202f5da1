//! Inboxes: a teammate's inbox exactly as `check_inbox` gives it (status filter, unread counts,
//! previews, paging by cursor), one relay thread as `view_thread` gives it, and the
//! recipient's actions. Sender text arrives wrapped by the engine and is shown as text.
use crate::route::{Route, View};
use crate::ui::{self, error_text, kv_table, not_offered, refused};
use baton_core::surface::results::{CheckInboxResult, RelayThreadResult};
use baton_core::surface::{
    AcceptHandoffArgs, CancelHandoffArgs, CheckInboxArgs, CompleteHandoffArgs, SendMessageArgs, ViewThreadArgs,
};
use baton_core::view::{relay_conversation, relay_preview, words, Category, RelayConversation, SenderCard};
use baton_core::{CallError, Caller, RelayStatus, RelayThreadId, Timestamp};
use leptos::prelude::*;
use serde_json::{json, Value};

/// Items per inbox page.
const PAGE: i64 = 20;

/// The inboxes view.
#[component]
pub fn Inboxes() -> impl IntoView {
    let ui = ui::ui();
    let status = RwSignal::new(String::new());
    let cursors = RwSignal::new(Vec::<String>::new());
    let handle = move || ui.route.with(|r| r.id.clone());
    let teammates = Memo::new(move |_| {
        let at = ui.at.get();
        ui.with_engine(at, |e, now| {
            e.state()
                .teammates
                .values()
                .map(|t| {
                    // The first 100 active threads; which want attention is core's rule.
                    let args = CheckInboxArgs { status: None, since: None, limit: Some(100), cursor: None };
                    let inbox = e.previews().check_inbox(&Caller::teammate(&t.handle), args, now);
                    let unread = inbox.map_or(0, |r| r.items.iter().filter(|i| i.wants_attention()).count());
                    (t.handle.clone(), t.name.clone(), t.role.clone(), unread)
                })
                .collect::<Vec<_>>()
        })
        .unwrap_or_default()
    });
    // Agents' thread mailboxes: threads with mail, by agent (queued = not yet delivered).
    let mailboxes = Memo::new(move |_| {
        let at = ui.at.get();
        ui.with_engine(at, |e, _| {
            let st = e.state();
            let mut per: std::collections::BTreeMap<(String, String), (usize, usize)> = Default::default();
            for m in st.messages.values() {
                let entry = per.entry((m.to_bot_id.as_str().to_owned(), m.to_thread_id.to_string())).or_default();
                entry.0 += 1;
                if m.state == baton_core::MailState::Queued {
                    entry.1 += 1;
                }
            }
            per.into_iter()
                .map(|((bot, thread), (all, queued))| {
                    let name = st.agents.get(&bot).map_or(bot.clone(), |a| a.display_name.clone());
                    let title =
                        st.threads.get(thread.as_str()).and_then(|t| t.title.clone()).unwrap_or_else(|| thread.clone());
                    (name, thread, title, all, queued)
                })
                .collect::<Vec<_>>()
        })
        .unwrap_or_default()
    });
    let page = Memo::new(move |_| {
        let at = ui.at.get();
        let h = handle()?;
        let st = status.get();
        let args = CheckInboxArgs {
            status: RelayStatus::ALL.iter().find(|s| s.as_str() == st).map(|s| vec![*s]),
            since: None,
            limit: Some(PAGE),
            cursor: cursors.with(|c| c.last().cloned()),
        };
        ui.with_engine(at, |e, now| e.previews().check_inbox(&Caller::teammate(&h), args, now))
    });
    view! {
        <div class="split">
            <section class="pane inbox-list">
                <h2>"Inboxes"</h2>
                <ul class="people">
                    {move || {
                        let ws = ui.route.with(|r| r.ws.clone()).unwrap_or_default();
                        teammates.get().into_iter().map(|(h, name, role, unread)| {
                            let active = handle().as_deref() == Some(h.as_str());
                            view! {
                                <li class:active=active>
                                    <a href=Route::of(&ws, View::Inbox).with_id(h.clone()).to_hash() on:click=move |_| cursors.set(Vec::new()) data-testid="teammate">
                                        {name}" "<small>{format!("{h} · {role}")}</small>
                                        {(unread > 0).then(|| view! { <span class="unread">{unread}</span> })}
                                    </a>
                                </li>
                            }
                        }).collect_view()
                    }}
                </ul>
                <Show when=move || handle().is_some()>
                    <div class="filters">
                        <select aria-label="Status" on:change=move |ev| { cursors.set(Vec::new()); status.set(event_target_value(&ev)) }>
                            <option value="">"active (pending + accepted)"</option>
                            {RelayStatus::ALL.iter().map(|s| view! { <option value=s.as_str()>{s.as_str()}</option> }).collect_view()}
                        </select>
                        <button disabled=move || cursors.with(Vec::is_empty) on:click=move |_| cursors.update(|c| { c.pop(); })>"← Newer"</button>
                        <button disabled=move || page.with(|p| next_cursor(p).is_none())
                            on:click=move |_| {
                                if let Some(c) = page.with_untracked(next_cursor) {
                                    cursors.update(|cs| cs.push(c));
                                }
                            }>"Older →"</button>
                    </div>
                    {move || {
                        let ws = ui.route.with(|r| r.ws.clone()).unwrap_or_default();
                        let h = handle().unwrap_or_default();
                        let items = match page.get() {
                            None => Vec::new(),
                            Some(Err(err)) => return view! { <p class="error">{error_text(&err)}</p> }.into_any(),
                            Some(Ok(p)) => p.items,
                        };
                        if items.is_empty() {
                            return view! { <p class="empty">"No threads in this inbox with this status."</p> }.into_any();
                        }
                        // Each item's text as its sender wrote it, read in one look at the engine.
                        let at = ui.at.get_untracked();
                        let (now, previews) = ui
                            .with_engine(at, |e, now| {
                                    let st = e.state();
                                    let texts: Vec<String> = items
                                        .iter()
                                        .map(|it| relay_preview(st, it.thread_id.as_str()).unwrap_or_default())
                                        .collect();
                                    (now, texts)
                                })
                            .unwrap_or_default();
                        view! { <ul class="items">{items.into_iter().zip(previews).map(|(it, preview)| {
                            let id = it.thread_id.to_string();
                            let sel = ui.route.with_untracked(|r| r.sub.clone()).as_deref() == Some(id.as_str());
                            let unread = it.unread_messages;
                            view! {
                                <li class:selected=sel data-testid="inbox-item">
                                    <a href=Route::of(&ws, View::Inbox).with_id(h.clone()).with_sub(id.clone()).to_hash()>
                                        <b>{it.sender.name}</b>" "<span class="tag">{it.status}</span>
                                        {(unread > 0).then(|| view! { <span class="unread">{format!("{unread} unread")}</span> })}
                                        <pre class="preview untrusted-line" title="untrusted — written by the sender">{preview}</pre>
                                        <small title=it.updated_at.clone()>{format!("updated {}", Timestamp::parse_iso(&it.updated_at).map_or_else(|| it.updated_at.clone(), |t| words::relative(now, t)))}</small>
                                    </a>
                                </li>
                            }
                        }).collect_view()}</ul> }.into_any()
                    }}
                </Show>
                <h3>"Agents' mailboxes"</h3>
                <ul class="people" data-testid="mailboxes">
                    {move || {
                        let ws = ui.route.with(|r| r.ws.clone()).unwrap_or_default();
                        mailboxes.get().into_iter().map(|(agent, thread, title, all, queued)| {
                            let href = Route::of(&ws, View::Thread).with_id(thread).to_hash();
                            view! {
                                <li><a href=href>{agent}" "<small>{title}</small>
                                    <span class="tag">{format!(" {all} messages")}</span>
                                    {(queued > 0).then(|| view! { <span class="unread">{format!("{queued} queued")}</span> })}
                                </a></li>
                            }
                        }).collect_view()
                    }}
                </ul>
            </section>
            <section class="pane detail">
                {move || match (handle(), ui.route.with(|r| r.sub.clone())) {
                    (Some(h), Some(t)) => view! { <RelayThreadView handle=h thread=t/> }.into_any(),
                    _ => view! { <p class="empty">"Pick a teammate, then a thread."</p> }.into_any(),
                }}
            </section>
        </div>
    }
}

#[component]
fn RelayThreadView(handle: String, thread: String) -> impl IntoView {
    let ui = ui::ui();
    let reply = RwSignal::new(String::new());
    let summary = RwSignal::new(String::new());
    let artifacts = RwSignal::new(String::new());
    let error = RwSignal::new(None::<String>);
    let accepted = RwSignal::new(false);
    let thread_id = RelayThreadId::from(thread.as_str());
    let (h, t) = (handle.clone(), thread_id.clone());
    let view_data = Memo::new(move |_| {
        let at = ui.at.get();
        let (h, t) = (h.clone(), t.clone());
        ui.with_engine(at, move |e, now| {
            e.previews().view_thread(&Caller::teammate(&h), ViewThreadArgs { thread_id: t }, now)
        })
    });
    // The thread for a person: the sender's card and the text as written (core's view::relay).
    let t3 = thread.clone();
    let person = Memo::new(move |_| {
        let at = ui.at.get();
        let t = t3.clone();
        ui.with_engine(at, move |e, now| relay_conversation(e.state(), &t).map(|c| (c, now))).flatten()
    });
    // Which actions the engine would take now (previewed, never committed): only those are
    // offered. `None`: allowed; `Some(why)`: refused, and why.
    let (h2, t2) = (handle.clone(), thread_id.clone());
    let offers = Memo::new(move |_| {
        let (h, t) = (h2.clone(), t2.clone());
        ui.with_session(move |s| {
            s.with_engine(None, |e, now| {
                let me = Caller::teammate(&h);
                let p = e.previews();
                let sender =
                    p.view_thread(&me, ViewThreadArgs { thread_id: t.clone() }, now).ok().map(|v| v.sender.handle);
                // A second accept is answered (`already_accepted`) but changes nothing: not offered.
                let accept = refused(
                    p.accept_handoff(&me, AcceptHandoffArgs { thread_id: t.clone(), session_id: None }, now),
                    |v| (v.already_accepted == Some(true)).then(|| "already accepted".to_string()),
                );
                let reply = refused(
                    p.send_message(
                        &me,
                        SendMessageArgs {
                            thread_id: t.clone(),
                            body: "preview".into(),
                            payload: None,
                            idempotency_key: None,
                        },
                        now,
                    ),
                    ui::answered,
                );
                let complete = refused(
                    p.complete_handoff(
                        &me,
                        CompleteHandoffArgs { thread_id: t.clone(), result_summary: "preview".into(), artifacts: None },
                        now,
                    ),
                    ui::answered,
                );
                let cancel = match &sender {
                    Some(s) => refused(
                        p.cancel_handoff(&Caller::teammate(s), CancelHandoffArgs { thread_id: t, reason: None }, now),
                        ui::answered,
                    ),
                    None => Some("no sender".into()),
                };
                [accept, reply, complete, cancel]
            })
        })
        .unwrap_or_else(|| [Some(String::new()), Some(String::new()), Some(String::new()), Some(String::new())])
    });
    let allowed = move |i: usize| offers.with(|o| o[i].is_none());
    // Once accepted here: what the acceptance gives the recipient (the same answer again, read
    // as a preview — a second accept changes nothing).
    let (h3, t3) = (handle.clone(), thread_id.clone());
    let acceptance = Memo::new(move |_| {
        if !accepted.get() {
            return None;
        }
        let (h, t) = (h3.clone(), t3.clone());
        ui.with_session(move |s| {
            s.with_engine(None, |e, now| {
                let args = AcceptHandoffArgs { thread_id: t, session_id: None };
                e.previews().accept_handoff(&Caller::teammate(&h), args, now).ok()
            })
        })
        .flatten()
    });
    // A tool call as the recipient, or as another handle (the sender, for `cancel_handoff`).
    let act = Callback::new(move |(tool, args, as_handle): (&'static str, Value, Option<String>)| {
        let Some(s) = ui.current() else { return };
        let caller = Caller::teammate(as_handle.as_deref().unwrap_or(&handle));
        error.set(None);
        ui.spawn_action(async move {
            match s.call(tool, args, caller).await {
                Ok(_) => {
                    if tool == "accept_handoff" {
                        accepted.set(true);
                    }
                    reply.set(String::new());
                }
                Err(e) => error.set(Some(error_text(&e))),
            }
            Ok(())
        });
    });
    let tid = StoredValue::new(thread.clone());
    let thread4 = thread.clone();
    let past = move || ui.route.with(|r| r.at.is_some());
    let complete = Callback::new(move |()| {
        let text = artifacts.get_untracked();
        let arts: Value = if text.trim().is_empty() {
            json!([])
        } else {
            match serde_json::from_str(&text) {
                Ok(v) => v,
                Err(e) => {
                    error.set(Some(format!("artifacts: not valid JSON ({e})")));
                    return;
                }
            }
        };
        act.run((
            "complete_handoff",
            json!({"thread_id": thread4.clone(), "result_summary": summary.get_untracked(), "artifacts": arts}),
            None,
        ));
    });
    view! {
        <div data-testid="relay-thread">
            <h2>"Relay thread "<code title=thread.clone()>{words::short_id(&thread)}</code>{ui::copy_id(thread.clone())}</h2>
            {move || person.get().map(|(c, now)| person_view(c, now))}
            <details class="as-model" data-testid="relay-as-model">
                <summary>"As the model sees it (wrapped, with the engine's markers)"</summary>
                {move || acceptance.get().map(|v| view! {
                    <div class="accepted" data-testid="accepted">
                        <h3>"Accepted — trust overlay"</h3>
                        {kv_table(&v.trust_overlay)}
                        <h3>"Sender's content (wrapped, untrusted)"</h3>
                        <pre class="box untrusted" data-testid="wrapped-summary">{v.summary}</pre>
                    </div>
                })}
                {move || view_data.get().map(|v| {
                    let mut v = match v {
                        Ok(v) => v,
                        Err(err) => return view! { <p class="error">{error_text(&err)}</p> }.into_any(),
                    };
                    let msgs = std::mem::take(&mut v.messages);
                    view! {
                        <h3>"Messages"</h3>
                        <ul class="mail" data-testid="relay-messages">{msgs.into_iter().map(|m| view! {
                            <li><b>{m.from}</b>" "<small>{m.created_at}</small><pre class="untrusted">{m.body}</pre></li>
                        }).collect_view()}</ul>
                        <h3>"view_thread"</h3>
                        {without_messages(&v)}
                    }.into_any()
                })}
            </details>
            <Show when=move || !past()>
                <div class="actions-box">
                    <h3>"Act as the recipient"</h3>
                    <Show when=move || allowed(0)>
                        <button class="primary" data-testid="accept" on:click=move |_| act.run(("accept_handoff", json!({"thread_id": tid.get_value()}), None))>"Accept"</button>
                    </Show>
                    <Show when=move || allowed(1)>
                        <textarea data-testid="reply-body" placeholder="Reply" prop:value=move || reply.get() on:input=move |ev| reply.set(event_target_value(&ev))></textarea>
                        <button data-testid="reply" on:click=move |_| act.run(("send_message", json!({"thread_id": tid.get_value(), "body": reply.get_untracked()}), None))>"Send reply"</button>
                    </Show>
                    <Show when=move || allowed(2)>
                        <input data-testid="result-summary" placeholder="Result summary" prop:value=move || summary.get() on:input=move |ev| summary.set(event_target_value(&ev))/>
                        <textarea placeholder=r#"Artifacts (JSON list, e.g. [{"type": "link", "title": "PR", "url": "https://…"}])"# prop:value=move || artifacts.get() on:input=move |ev| artifacts.set(event_target_value(&ev))></textarea>
                        <button data-testid="complete" on:click=move |_| complete.run(())>"Complete"</button>
                    </Show>
                    <Show when=move || allowed(3)>
                        <button class="danger" title="cancel_handoff is the sender's: this acts as the sender" on:click=move |_| {
                            let sender = view_data.with_untracked(|v| v.as_ref().and_then(|v| v.as_ref().ok()).map(|v| v.sender.handle.clone()));
                            if sender.is_some() {
                                act.run(("cancel_handoff", json!({"thread_id": tid.get_value()}), sender));
                            }
                        }>"Cancel (as the sender)"</button>
                    </Show>
                    <p class="hint" data-testid="not-offered">{move || offers.with(|o| not_offered(&["accept", "reply", "complete", "cancel"], o))}</p>
                    {move || error.get().map(|e| view! { <p class="error" role="alert" data-testid="inbox-error">{e}</p> })}
                </div>
            </Show>
            <p><a href="#" on:click=move |ev| { ev.prevent_default(); let r = ui.route.get_untracked(); ui.go(&Route { sub: None, ..r }); }>"← back to the inbox"</a></p>
        </div>
    }
}

/// The cursor of the next page, if there is one.
fn next_cursor(page: &Option<Result<CheckInboxResult, CallError>>) -> Option<String> {
    page.as_ref()?.as_ref().ok()?.next_cursor.clone()
}

/// `view_thread`'s answer as the model reads it, its messages (listed above) left out.
fn without_messages(v: &RelayThreadResult) -> impl IntoView {
    let mut head = serde_json::to_value(v).unwrap_or(Value::Null);
    if let Value::Object(m) = &mut head {
        m.remove("messages");
    }
    kv_table(&head)
}

/// A teammate as a name card: name, handle, role, and what the recipient's trust rules let the
/// sender's work do.
fn card(c: SenderCard) -> AnyView {
    view! {
        <span class="card" title=c.trust.clone()>
            <b>{c.name}</b>" "<span class="handle">{c.handle}</span>
            {(!c.role.is_empty()).then(|| view! { " · "<span class="role">{c.role}</span> })}
        </span>
    }
    .into_any()
}

/// Sender-written text inside a frame that says whose it is and that it is untrusted; the text
/// itself is a text node (never markup).
fn framed(from: SenderCard, at: Timestamp, now: Timestamp, body: String) -> AnyView {
    view! {
        <div class="untrusted-frame">
            <div class="frame-head">{card(from)}" · "{ui::when(now, at)}
                " · "<span class="untrusted-mark">"untrusted — written by the sender"</span></div>
            <pre class="frame-body">{body}</pre>
        </div>
    }
    .into_any()
}

/// The thread for a person: status as a badge, the sender's card with their trust rules, the
/// summary and every message framed as untrusted text.
fn person_view(c: RelayConversation, now: Timestamp) -> AnyView {
    let cat = Category::of_relay(c.status);
    let status = match c.status {
        RelayStatus::Pending => "pending — not accepted yet",
        RelayStatus::Accepted => "accepted — being worked on",
        RelayStatus::Completed => "completed",
        RelayStatus::Cancelled => "cancelled by the sender",
    };
    let trust = c.sender.trust.clone();
    view! {
        <div class="person" data-testid="relay-person">
            <p class="status-line">
                {ui::status_badge(cat, status, words::status(c.status.as_str()).1)}
                " "<span class="meaning">{format!("sent {}, last change {}", words::relative(now, c.created_at), words::relative(now, c.updated_at))}</span>
            </p>
            <p class="who">"From "{card(c.sender.clone())}</p>
            <p class="trust" data-testid="sender-trust">{trust}</p>
            {framed(c.sender, c.created_at, now, c.summary)}
            {c.messages.into_iter().map(|m| framed(m.from, m.at, now, m.body)).collect_view()}
        </div>
    }
    .into_any()
}
