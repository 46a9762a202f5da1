//! The delegation tree (rows from `baton_core::view::chain_rows`, virtualized) and a handoff's
//! detail panel: `handoff_status` and `handoff_results` as the parent would get them, the
//! child's context, allowed tools and mail, and the parent's actions.
use crate::route::{Route, View};
use crate::session::Kept;
use crate::ui::{
    self, answer_table, copy_id, error_text, json_tree, kv_table, not_offered, refused, status_badge, when,
};
use baton_core::surface::{HandoffCancelArgs, HandoffIdArgs, HandoffSendArgs};
use baton_core::view::words;
use baton_core::view::{
    agent_name, chain_rows, decimal, handoff_next, Category, ChainFilter, ChainRow, NextEvent, RowKind,
};
use baton_core::{Caller, Status, Timestamp};
use leptos::prelude::*;
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::sync::Arc;
use wasm_bindgen::JsCast;

/// Row height in pixels (fixed, so only the rows in view are rendered).
pub const ROW_H: f64 = 28.0;
/// Rows rendered above and below the viewport.
const OVERSCAN: usize = 12;

/// A status's colour as the `--cat` custom property the page's styles draw with (core's one
/// palette: `baton_core::view::Category`).
fn cat_style(s: Option<Status>) -> String {
    format!("--cat:{}", Category::of(s).colour())
}

/// Marks the first render of a non-empty tree (the bench reads it).
fn mark_first_render() {
    let global = js_sys::global();
    if js_sys::Reflect::get(&global, &"__batonFirstRender".into()).is_ok_and(|v| v.is_undefined()) {
        let now = web_sys::window().and_then(|w| w.performance()).map_or(0.0, |p| p.now());
        let _ = js_sys::Reflect::set(&global, &"__batonFirstRender".into(), &now.into());
    }
}

/// The chains view.
#[component]
pub fn Chains() -> impl IntoView {
    let ui = ui::ui();
    let statuses = RwSignal::new(BTreeSet::<Status>::new());
    let agent = RwSignal::new(String::new());
    let collapsed = RwSignal::new(BTreeSet::<String>::new());
    let scroll = RwSignal::new(0.0f64);
    let height = RwSignal::new(600.0f64);
    let rows = Memo::new(move |_| {
        let at = ui.at.get();
        let filter = ChainFilter { statuses: statuses.get(), agent: Some(agent.get()).filter(|a| !a.is_empty()) };
        let collapsed = collapsed.get();
        // Every row, none collapsed, live: what a large workspace keeps for its next opening.
        let every = at.is_none() && filter == ChainFilter::default() && collapsed.is_empty();
        // While the workspace opens, the rows it kept at its last record (none under a filter).
        if let Some(kept) = ui.kept_rows() {
            return if every { kept } else { Arc::default() };
        }
        // Rows read back while the workspace opened, while neither its log nor its clock moved
        // (asked only for the live rows: a past view does not follow the clock).
        if every {
            if let Some(Kept::Rows(rows)) = ui.with_session(|s| s.reused()).flatten() {
                return rows;
            }
        }
        let (rows, now) =
            ui.with_engine(at, |e, now| (chain_rows(e.state(), now, &filter, &collapsed), now)).unwrap_or_default();
        let rows = Arc::new(rows);
        if let Some(s) = ui.current().filter(|_| every) {
            s.keep_rows(&rows, now);
        }
        rows
    });
    let agents = Memo::new(move |_| {
        ui.with_records(|s| {
            s.with_engine(None, |e, _| {
                e.state().agents.values().map(|a| (a.bot_id.clone(), a.display_name.clone())).collect::<Vec<_>>()
            })
        })
        .unwrap_or_default()
    });
    let selected = move || ui.route.with(|r| r.id.clone());
    Effect::new(move |_| {
        if !rows.with(|r| r.is_empty()) {
            mark_first_render();
        }
    });

    // Keyboard: j/k or ↓/↑ move the selection, ←/→ collapse and expand, Enter opens the thread.
    let keys = window_event_listener(leptos::ev::keydown, move |ev| {
        let tag = ev.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()).map(|e| e.tag_name());
        if matches!(tag.as_deref(), Some("INPUT" | "TEXTAREA" | "SELECT")) {
            return;
        }
        // A focused link or button (a graph node) opens itself on Enter.
        if ev.key() == "Enter" && matches!(tag.as_deref(), Some("A" | "BUTTON")) {
            return;
        }
        let r = ui.route.get_untracked();
        let Some(ws) = r.ws.clone() else { return };
        // Only the ids and thread ids of the rows (not a copy of every row).
        let list: Vec<_> =
            rows.with_untracked(|rows| rows.iter().map(|r| (r.id.clone(), r.thread_id.clone())).collect());
        if list.is_empty() {
            return;
        }
        let pos = r.id.as_ref().and_then(|id| list.iter().position(|(row, _)| row == id));
        let select = |i: usize| {
            let top = i as f64 * ROW_H;
            if let Some(el) =
                web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id("chain-scroll"))
            {
                let h = el.client_height() as f64;
                let st = el.scroll_top() as f64;
                if top < st {
                    el.set_scroll_top(top as i32);
                } else if top + ROW_H > st + h {
                    el.set_scroll_top((top + ROW_H - h) as i32);
                }
            }
            ui.go(&Route { at: r.at, mode: r.mode.clone(), ..Route::of(&ws, View::Chains).with_id(list[i].0.clone()) });
        };
        match ev.key().as_str() {
            "j" | "ArrowDown" => {
                ev.prevent_default();
                select(pos.map_or(0, |p| (p + 1).min(list.len() - 1)));
            }
            "k" | "ArrowUp" => {
                ev.prevent_default();
                select(pos.map_or(0, |p| p.saturating_sub(1)));
            }
            "ArrowLeft" | "ArrowRight" => {
                if let Some(p) = pos {
                    let id = list[p].0.to_string();
                    let close = ev.key() == "ArrowLeft";
                    collapsed.update(|c| {
                        if close {
                            c.insert(id);
                        } else {
                            c.remove(&id);
                        }
                    });
                }
            }
            "Enter" => {
                if let Some(t) = pos.and_then(|p| list[p].1.clone()) {
                    ui.go(&Route { at: r.at, ..Route::of(&ws, View::Thread).with_id(t) });
                }
            }
            _ => {}
        }
    });
    on_cleanup(move || keys.remove());

    let visible = move || {
        let first = ((scroll.get() / ROW_H) as usize).saturating_sub(OVERSCAN);
        let count = (height.get() / ROW_H) as usize + 2 * OVERSCAN;
        rows.with(|rows| {
            rows.iter().enumerate().skip(first).take(count).map(|(i, r)| (i, r.clone())).collect::<Vec<_>>()
        })
    };
    let on_scroll = move |ev: leptos::ev::Event| {
        let el: web_sys::HtmlElement = event_target(&ev);
        scroll.set(el.scroll_top() as f64);
        height.set(el.client_height() as f64);
    };
    let toggle_status = move |s: Status| {
        statuses.update(|set| {
            if !set.remove(&s) {
                set.insert(s);
            }
        })
    };
    let graph_mode = move || ui.route.with(|r| r.mode.as_deref() == Some("graph"));
    let mode_link = move |graph: bool| {
        let r = ui.route.get();
        Route { mode: graph.then(|| "graph".to_string()), ..r }.to_hash()
    };
    view! {
        <div class="split">
            <section class="pane tree">
                <div class="filters">
                    {Status::ALL.iter().filter(|s| **s != Status::Timeout).map(|s| {
                        let s = *s;
                        view! {
                            <button class="chip" style=cat_style(Some(s)) title=words::status(s.as_str()).1
                                class:on=move || statuses.with(|set| set.contains(&s))
                                on:click=move |_| toggle_status(s)>{words::status(s.as_str()).0}</button>
                        }
                    }).collect_view()}
                    <select aria-label="Agent" data-testid="agent-filter" on:change=move |ev| agent.set(event_target_value(&ev))>
                        <option value="">"every agent"</option>
                        {move || agents.get().into_iter().map(|(id, name)| view! { <option value=id>{name}</option> }).collect_view()}
                    </select>
                    <span class="modes" role="tablist" aria-label="Chains view">
                        <a href=move || mode_link(false) class:active=move || !graph_mode() role="tab" data-testid="mode-tree">"Tree"</a>
                        <a href=move || mode_link(true) class:active=graph_mode role="tab" data-testid="mode-graph">"Graph"</a>
                    </span>
                    <span class="count">{move || format!("{} rows", rows.with(|r| r.len()))}</span>
                    <Show when=move || ui.kept_rows().is_some()>
                        <span data-testid="rows-kept">" · opening the workspace: the rows as it kept them at its last record"</span>
                    </Show>
                </div>
                <Show when=graph_mode>
                    <crate::views::graph::Graph rows=rows selected=Signal::derive(selected)/>
                </Show>
                <div id="chain-scroll" class="scroll" class:hidden=graph_mode on:scroll=on_scroll data-testid="chain-list">
                    <div class="spacer" style=move || format!("height:{}px", decimal(rows.with(|r| r.len()) as f64 * ROW_H))>
                        <For each=visible key=|(i, r)| format!("{i}|{r:?}") let((i, row))>
                            <Row i=i row=row selected=Signal::derive(selected) collapsed=collapsed/>
                        </For>
                    </div>
                    {move || rows.with(|r| r.is_empty()).then(|| view! { <p class="empty">"No handoffs yet — run the demo mission, attach a server, or start one by hand under “Act as agent”."</p> })}
                </div>
            </section>
            <section class="pane detail">
                {move || match selected() {
                    Some(id) => view! { <Detail id=id/> }.into_any(),
                    None => view! { <p class="empty">"Select a handoff (click, or j/k) to see its status, results and actions."</p> }.into_any(),
                }}
            </section>
        </div>
    }
}

#[component]
fn Row(
    i: usize,
    row: ChainRow,
    selected: Signal<Option<String>>,
    collapsed: RwSignal<BTreeSet<String>>,
) -> impl IntoView {
    let ui = ui::ui();
    let id = row.id.to_string();
    let is_sel = {
        let id = id.clone();
        move || selected.get().as_deref() == Some(id.as_str())
    };
    let open = {
        let row = row.clone();
        move |_| {
            let r = ui.route.get_untracked();
            let Some(ws) = r.ws.clone() else { return };
            let target = match row.kind {
                RowKind::Root => Route::of(&ws, View::Thread).with_id(row.id.clone()),
                RowKind::Handoff => Route::of(&ws, View::Chains).with_id(row.id.clone()),
            };
            ui.go(&Route { at: r.at, ..target });
        }
    };
    let toggle = {
        let id = id.clone();
        move |ev: leptos::ev::MouseEvent| {
            ev.stop_propagation();
            let id = id.clone();
            collapsed.update(|c| {
                if !c.remove(&id) {
                    c.insert(id);
                }
            });
        }
    };
    let facts = match row.kind {
        RowKind::Root => format!(
            "{} · {} · {} old",
            row.agent,
            words::count(row.children as u64, "handoff", "handoffs"),
            words::compact(row.age_ms)
        ),
        RowKind::Handoff => {
            let mut f = format!("{} → {} · {} old", row.from_agent, row.agent, words::compact(row.age_ms));
            if let Some(idle) = row.idle_ms {
                f.push_str(&format!(" · idle {}", words::compact(idle)));
            }
            f.push_str(&format!(" · {}", words::count(row.tool_calls, "tool call", "tool calls")));
            if row.nudges > 0 {
                f.push_str(&format!(" · {}", words::count(u64::from(row.nudges), "reminder", "reminders")));
            }
            f
        }
    };
    view! {
        <div class=format!("row depth-{} cat-{}", row.depth.min(8), Category::of(row.status).as_str())
            class:selected=is_sel class:dim=!row.matched && row.kind == RowKind::Handoff
            style=format!("top:{}px;padding-left:{}px;{}", decimal(i as f64 * ROW_H), 8 + row.depth as u32 * 18, cat_style(row.status))
            data-id=id.clone() data-testid="chain-row" on:click=open>
            {(row.children > 0).then(|| view! {
                <button class="twisty" on:click=toggle aria-label="collapse or expand">{if row.collapsed { "▸" } else { "▾" }}</button>
            })}
            <span class="dot" title=row.status.map(|s| s.as_str()).unwrap_or("thread")></span>
            <span class="label">{row.label.clone()}</span>
            {row.blueprint.clone().map(|b| view! { <span class="badge bp" title="blueprint">{b}</span> })}
            {row.chained.then(|| view! { <span class="badge chain" title="blueprint chain (B3)">"chain"</span> })}
            {row.coding_agent.map(|c| view! { <span class="badge coding" title="coding agent">{c}</span> })}
            <span class="facts">{facts}</span>
            {row.status.map(|s| view! { <span class="status">{s.as_str()}</span> })}
        </div>
    }
}

/// One handoff for a person: what it is, how long, what next (core's `view::words` speaks),
/// the result, the mail between parent and child, tools and context; the raw answers as the
/// model gets them one click away; the parent's actions.
#[component]
fn Detail(id: String) -> impl IntoView {
    let ui = ui::ui();
    let output = RwSignal::new(None::<(String, Value)>);
    let error = RwSignal::new(None::<String>);
    let message = RwSignal::new(String::new());
    let reason = RwSignal::new(String::new());
    let hid = id.clone();
    let oid = id.clone();
    let data = Memo::new(move |_| {
        let at = ui.at.get();
        let id = hid.clone();
        ui.with_engine(at, move |e, now| {
            let st = e.state();
            let h = st.handoffs.get(id.as_str())?.clone();
            let caller = Caller::new(&h.parent_thread_id, &h.parent_bot_id);
            let args = || HandoffIdArgs { handoff_id: h.handoff_id.clone() };
            let status = e.previews().handoff_status(&caller, args(), now);
            let results = e.previews().handoff_results(&caller, args(), now);
            let child = h.child_thread_id.as_ref().and_then(|c| st.threads.get(c)).cloned();
            let act = h.child_thread_id.as_ref().and_then(|c| st.activity.get(c)).cloned().unwrap_or_default();
            let mut mail: Vec<_> = st
                .messages
                .values()
                .filter(|m| {
                    let ends = [m.from_thread_id.as_str(), m.to_thread_id.as_str()];
                    ends.contains(&h.parent_thread_id.as_str())
                        && h.child_thread_id.as_deref().is_some_and(|c| ends.contains(&c))
                })
                .map(|m| Mail {
                    seq: m.seq,
                    from: agent_name(st, &m.from_bot_id),
                    to: agent_name(st, &m.to_bot_id),
                    subject: m.subject.clone().unwrap_or_default(),
                    body: m.body.clone(),
                    sent: m.sent_at,
                })
                .collect();
            mail.sort_by_key(|m| m.seq);
            let said = status.as_ref().ok().map(|s| s.status.clone()).unwrap_or_else(|| h.status.as_str().to_string());
            let (label, meaning) = words::status(&said);
            let facts = Facts {
                handoff_id: h.handoff_id.to_string(),
                now,
                category: Category::of(Some(h.status)),
                label,
                meaning,
                parent_agent: agent_name(st, &h.parent_bot_id),
                child_agent: agent_name(st, &h.child_bot_id),
                started: h.created_at,
                last_activity: act.last_activity_at,
                finished: h.finished_at.or(h.cancelled_at),
                reminders: h.nudges_sent,
                not_told: status.as_ref().ok().and_then(|s| s.not_notified_reason.as_deref()).map(words::not_told),
                next: handoff_next(st, id.as_str()),
                result: h.result.clone(),
                latest: act.last_response.clone(),
                error: h.error.clone(),
                cancel_reason: h.cancel_reason.clone(),
            };
            Some((
                h.parent_thread_id.to_string(),
                h.child_thread_id.as_ref().map(ToString::to_string),
                h.spec.task.clone(),
                facts,
                status,
                results,
                child.and_then(|c| c.context_data.clone()).map(Value::Object),
                h.spec.allowed_tools.clone(),
                mail,
            ))
        })
        .flatten()
    });
    let act = Callback::new(move |(tool, extra): (&'static str, Value)| {
        let Some(s) = ui.current() else { return };
        let Some((parent, ..)) = data.get_untracked() else { return };
        let bot = s.engine().state().threads.get(parent.as_str()).map(|t| t.bot_id.clone()).unwrap_or_default();
        let mut args = json!({"handoff_id": id.clone()});
        if let (Value::Object(a), Value::Object(x)) = (&mut args, extra) {
            a.extend(x);
        }
        error.set(None);
        ui.spawn_action(async move {
            match s.call(tool, args, Caller::new(&parent, &bot)).await {
                Ok(v) => output.set(Some((tool.to_string(), v))),
                Err(e) => error.set(Some(error_text(&e))),
            }
            Ok(())
        });
    });
    let past = move || ui.route.with(|r| r.at.is_some());
    // The parent's actions the engine would take now (previewed, never committed): only those
    // are offered; `Some(why)` for the others.
    let offers = Memo::new(move |_| {
        let id = oid.clone();
        ui.with_session(move |s| {
            s.with_engine(None, |e, now| {
                let h = e.state().handoffs.get(id.as_str())?.clone();
                let caller = Caller::new(&h.parent_thread_id, &h.parent_bot_id);
                let id = h.handoff_id.clone();
                let send = e.previews().handoff_send(
                    &caller,
                    HandoffSendArgs { handoff_id: id.clone(), message: "preview".into() },
                    now,
                );
                let cancel =
                    e.previews().handoff_cancel(&caller, HandoffCancelArgs { handoff_id: id, reason: None }, now);
                Some([
                    refused(send, |r| (!r.success).then(|| r.reason.clone().unwrap_or_else(|| "refused".into()))),
                    refused(cancel, |r| (!r.success).then(|| "refused".into())),
                ])
            })
        })
        .flatten()
        .unwrap_or_else(|| [Some(String::new()), Some(String::new())])
    });
    let allowed = move |i: usize| offers.with(|o| o[i].is_none());
    view! {
        {move || match data.get() {
            None if ui.kept_rows().is_some() => view! { <p class="empty">"Opening the workspace: its details show once it is read."</p> }.into_any(),
            None => view! { <p class="empty">"No such handoff in this workspace (at this time)."</p> }.into_any(),
            Some((parent, child, task, facts, status, results, context, tools, mail)) => {
                let facts_now = facts.now;
                let ws = ui.route.with_untracked(|r| r.ws.clone()).unwrap_or_default();
                let thread_link = |t: String| {
                    let href = Route::of(&ws, View::Thread).with_id(t.clone()).to_hash();
                    view! { <a href=href title=format!("{t} (click to open the thread)")>{words::short_id(&t)}</a>{copy_id(t.clone())} }.into_any()
                };
                let parent_link = thread_link(parent.clone());
                let child_link = child.clone().map(thread_link);
                view! {
                    <div data-testid="handoff-detail">
                        <h2>{task}</h2>
                        {person(facts, parent_link, child_link)}
                        <h3>"Allowed tools"</h3>
                        <p>{if tools.is_empty() { "All of the target's tools.".to_string() } else { tools.join(", ") }}</p>
                        <h3>"Between parent and child"</h3>
                        {if mail.is_empty() { view! { <p class="empty">"No mail between them yet."</p> }.into_any() } else {
                            let now = facts_now;
                            view! { <ul class="mail" data-testid="handoff-mail">{mail.into_iter().map(|m| view! {
                                <li><b>{m.from}</b>" → "{m.to}" · "{when(now, m.sent)}
                                    {(!m.subject.is_empty()).then(|| view! { " · "<i>{m.subject}</i> })}<pre>{m.body}</pre></li>
                            }).collect_view()}</ul> }.into_any()
                        }}
                        {context.clone().map(|c| view! {
                            <details class="context" data-testid="context-tree"><summary>"Context data"</summary>{json_tree(&c)}</details>
                        }.into_any())}
                        {view! { <details class="as-model" data-testid="as-model">
                            <summary>"As the model sees it"</summary>
                            <h4>"handoff_status"</h4>
                            {answer_table(&status)}
                            <h4>"handoff_results"</h4>
                            {answer_table(&results)}
                            <h4>"context_data"</h4>
                            <pre class="box">{serde_json::to_string_pretty(&context.unwrap_or(Value::Null)).unwrap_or_default()}</pre>
                        </details> }.into_any()}
                    </div>
                }.into_any()
            }
        }}
        <Show when=move || !past()>
            <div class="actions-box">
                <h3>"Act as the parent"</h3>
                <Show when=move || allowed(0)>
                    <textarea placeholder="Follow-up message" prop:value=move || message.get() on:input=move |ev| message.set(event_target_value(&ev))></textarea>
                    <button data-testid="send-follow-up" on:click=move |_| act.run(("handoff_send", json!({"message": message.get_untracked()})))>"Send follow-up"</button>
                </Show>
                <button on:click=move |_| act.run(("handoff_results", json!({})))>"Read results"</button>
                <Show when=move || allowed(1)>
                    <input placeholder="Cancel reason (optional)" prop:value=move || reason.get() on:input=move |ev| reason.set(event_target_value(&ev))/>
                    <button class="danger" data-testid="cancel-handoff" on:click=move |_| {
                        let r = reason.get_untracked();
                        act.run(("handoff_cancel", if r.is_empty() { json!({}) } else { json!({"reason": r}) }))
                    }>"Cancel handoff"</button>
                </Show>
                <p class="hint" data-testid="parent-not-offered">{move || offers.with(|o| not_offered(&["follow-up", "cancel"], o))}</p>
                {move || error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
                {move || output.get().map(|(tool, v)| view! { <div class="output"><h4>{tool}</h4>{kv_table(&v)}</div> })}
            </div>
        </Show>
    }
}

/// One message between parent and child.
#[derive(Clone, PartialEq)]
struct Mail {
    seq: u64,
    from: String,
    to: String,
    subject: String,
    body: String,
    sent: Timestamp,
}

/// What a person reads first about a handoff (every word from `view::words`).
#[derive(Clone, PartialEq)]
struct Facts {
    handoff_id: String,
    now: Timestamp,
    category: Category,
    label: &'static str,
    meaning: &'static str,
    parent_agent: String,
    child_agent: String,
    started: Timestamp,
    last_activity: Option<Timestamp>,
    finished: Option<Timestamp>,
    reminders: u32,
    not_told: Option<String>,
    next: Vec<(Timestamp, NextEvent)>,
    result: Option<String>,
    latest: Option<String>,
    error: Option<String>,
    cancel_reason: Option<String>,
}

/// The person's part of the panel: status and meaning, who handed what to whom, times,
/// duration, reminders, why the parent has not been told, what comes next, the result.
fn person(f: Facts, parent: AnyView, child: Option<AnyView>) -> AnyView {
    let now = f.now;
    let took = f.finished.unwrap_or(now).since(f.started);
    let took_label = if f.finished.is_some() { "Took" } else { "Running for" };
    // Each fact a label and a value, rendered by one loop (one view type, not one per fact).
    let mut facts: Vec<(&'static str, AnyView)> = vec![("Started", when(now, f.started).into_any())];
    facts.extend(f.last_activity.map(|t| ("Last activity", when(now, t).into_any())));
    facts.extend(f.finished.map(|t| ("Finished", when(now, t).into_any())));
    facts.push((took_label, words::duration(took).into_any()));
    facts.extend((f.reminders > 0).then(|| ("Reminders sent", f.reminders.to_string().into_any())));
    facts.extend(f.cancel_reason.map(|r| ("Cancelled because", r.into_any())));
    facts.extend(f.not_told.map(|w| ("Parent not told yet", w.into_any())));
    for (t, e) in f.next {
        facts.push(("Next", view! { {format!("{} ", capitalised(e.words()))}{when(now, t)} }.into_any()));
    }
    let (text_label, text) = match (&f.result, &f.latest, &f.error) {
        (Some(r), _, _) => ("Result", Some(r.clone())),
        (None, _, Some(e)) => ("Error", Some(e.clone())),
        (None, Some(l), None) => ("Latest response", Some(l.clone())),
        _ => ("Result", None),
    };
    view! {
        <div class="person" data-testid="handoff-person">
            <p class="status-line">
                {status_badge(f.category, f.label, f.meaning)}
                " "<span class="meaning">{f.meaning}</span>
            </p>
            <p class="who">{f.parent_agent}" handed this to "{f.child_agent}" · parent thread "{parent}" · child thread "{child}
                " · handoff "<span title=f.handoff_id.clone()>{words::short_id(&f.handoff_id)}</span>{copy_id(f.handoff_id.clone())}</p>
            <dl class="facts">
                {facts.into_iter().map(|(k, v)| view! { <dt>{k}</dt><dd>{v}</dd> }).collect_view()}
            </dl>
            <h3>{text_label}</h3>
            {match text {
                Some(t) => view! { <pre class="box result">{t}</pre> }.into_any(),
                None => view! { <p class="empty">"Nothing yet: the child has not answered."</p> }.into_any(),
            }}
        </div>
    }
    .into_any()
}

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    // Baton's own words (`NextEvent::words`), all ASCII: no Unicode case tables for them.
    c.next().map(|f| std::iter::once(f.to_ascii_uppercase()).chain(c).collect()).unwrap_or_default()
}
