//! The log over time: the swimlanes (`lanes.rs`, first) or the records — one entry per record
//! (`baton_core::view::timeline_entry`), newest at the bottom, virtualized. Choosing an entry,
//! or a time on the lanes' axis, views every other view as of that record (`?at=`).
use crate::route::{Route, View};
use crate::ui;
use baton_core::view::words;
use baton_core::view::{decimal, timeline_entry, TimelineEntry};
use leptos::prelude::*;

const ENTRY_H: f64 = 48.0;
const OVERSCAN: usize = 10;

/// The timeline view.
#[component]
pub fn Timeline() -> impl IntoView {
    let ui = ui::ui();
    let scroll = RwSignal::new(f64::MAX);
    let height = RwSignal::new(600.0f64);
    let count = Memo::new(move |_| ui.with_records(|s| s.records.borrow().len()).unwrap_or(0));
    let at = move || ui.at.get();
    let entries = move || {
        let n = count.get();
        let top = scroll.get().min((n as f64 * ENTRY_H - height.get()).max(0.0));
        let first = ((top / ENTRY_H) as usize).saturating_sub(OVERSCAN);
        let take = (height.get() / ENTRY_H) as usize + 2 * OVERSCAN;
        ui.with_records(|s| {
            let engine = s.engine();
            let st = engine.state();
            s.records
                .borrow()
                .iter()
                .skip(first)
                .take(take)
                .map(|r| timeline_entry(r, st))
                .collect::<Vec<TimelineEntry>>()
        })
        .unwrap_or_default()
    };
    let scrub = move |seq: Option<u64>| {
        let r = ui.route.get_untracked();
        ui.go(&Route { at: seq, ..r });
    };
    let node = NodeRef::<leptos::html::Div>::new();
    // Start at the newest entry.
    Effect::new(move |_| {
        if let Some(el) = node.get() {
            let n = count.get();
            if scroll.get_untracked() == f64::MAX {
                el.set_scroll_top((n as f64 * ENTRY_H) as i32);
            }
        }
    });
    let records_mode = move || ui.route.with(|r| r.mode.as_deref() == Some("records"));
    let mode_link = move |records: bool| {
        let r = ui.route.get();
        Route { mode: records.then(|| "records".to_string()), ..r }.to_hash()
    };
    view! {
        <section class="pane timeline" data-testid="timeline">
            <div class="scrubber">
                <span class="modes" role="tablist" aria-label="Timeline view">
                    <a href=move || mode_link(false) class:active=move || !records_mode() role="tab" data-testid="mode-lanes">"Lanes"</a>
                    <a href=move || mode_link(true) class:active=records_mode role="tab" data-testid="mode-records">"Records"</a>
                </span>
                <label>"Record "
                    <input type="range" min="1" data-testid="scrub" prop:max=move || count.get().to_string()
                        prop:value=move || at().unwrap_or(count.get() as u64).to_string()
                        on:change=move |ev| {
                            let v: u64 = event_target_value(&ev).parse().unwrap_or(0);
                            scrub(if v as usize >= count.get_untracked() { None } else { Some(v) });
                        }/>
                </label>
                <span>{move || match at() { Some(a) => format!("{a} of {}", count.get()), None => format!("live · {} records", count.get()) }}</span>
                <Show when=move || ui.kept_lanes().is_some()>
                    <span data-testid="lanes-kept">" · opening the workspace: the lanes as it kept them at its last record"</span>
                </Show>
                <Show when=move || ui.with_records(|s| s.history_loading.get()).unwrap_or(false)>
                    <span data-testid="history-loading">" · reading the history…"</span>
                </Show>
                <Show when=move || at().is_some()>
                    <button on:click=move |_| scrub(None)>"Back to live"</button>
                    <a href=move || { let r = ui.route.get(); Route { view: View::Chains, id: None, sub: None, ..r }.to_hash() }>"Chains at this time"</a>
                    <a href=move || { let r = ui.route.get(); Route { view: View::Inbox, id: None, sub: None, ..r }.to_hash() }>"Inboxes at this time"</a>
                </Show>
            </div>
            <details class="effects">
                <summary>{move || format!("Host effects ({})", ui.with_records(|s| s.effects.borrow().len()).unwrap_or(0))}</summary>
                <p class="hint">"What the engine told a host to do (start a child, wake a thread, post a callback…). The console runs no model, so it carries none out."</p>
                <ul>{move || ui.with_records(|s| s.effects.borrow().iter().rev().take(50).map(|e| view! { <li><code>{e.clone()}</code></li> }).collect_view())}</ul>
            </details>
            <Show when=move || !records_mode()>
                <crate::views::lanes::Lanes/>
            </Show>
            <div class="scroll" node_ref=node class:hidden=move || !records_mode() on:scroll=move |ev| {
                let el: web_sys::HtmlElement = event_target(&ev);
                scroll.set(el.scroll_top() as f64);
                height.set(el.client_height() as f64);
            }>
                <div class="spacer" style=move || format!("height:{}px", decimal(count.get() as f64 * ENTRY_H))>
                    <For each=entries key=|e| (e.seq, e.lines.len()) let(e)>
                        {
                            let seq = e.seq;
                            let ws = ui.route.with_untracked(|r| r.ws.clone()).unwrap_or_default();
                            let first = e.lines.first().cloned().unwrap_or_else(|| "(bookkeeping only)".into());
                            let more = e.lines.len().saturating_sub(1);
                            let all = e.lines.join("\n");
                            let link = e.ids.iter().find(|i| i.starts_with("handoff_")).cloned()
                                .map(|h| Route::of(&ws, View::Chains).with_id(h).to_hash());
                            view! {
                                <div class="entry" class:current=move || at() == Some(seq) data-testid="timeline-entry"
                                    style=format!("top:{}px", decimal((seq - 1) as f64 * ENTRY_H)) title=all on:click=move |_| scrub(Some(seq))>
                                    <span class="seq">{format!("#{seq}")}</span>
                                    <span class="when">{words::clock(e.at)}</span>
                                    <span class="cmd">{e.command.clone()}</span>
                                    <span class="what">{first}{(more > 0).then(|| format!("  (+{more})"))}</span>
                                    {link.map(|l| view! { <a class="small" href=l on:click=|ev| ev.stop_propagation()>"open"</a> })}
                                </div>
                            }
                        }
                    </For>
                </div>
            </div>
        </section>
    }
}
