//! The shell: workspace bar, clock, navigation, keyboard shortcuts, and the view the route names.
use crate::route::{Route, View};
use crate::session::{self, Session};
use crate::ui::{self, Ui};
use crate::views::{act, chains, inbox, missions, thread, timeline};
use baton_core::view::words;
use baton_core::Timestamp;
use leptos::prelude::*;
use std::rc::Rc;
use std::time::Duration;
use wasm_bindgen::JsCast;

fn hash() -> String {
    web_sys::window().and_then(|w| w.location().hash().ok()).unwrap_or_default()
}

/// The clock's step per interval tick, in real milliseconds.
const TICK_MS: u64 = 250;

/// Follows the route: generates a workspace (`#/generate/N`), or wants the one it names (the
/// resource in [`Ui`] opens it unless it is the open one).
fn follow_route(ui: Ui) {
    let r = ui.route.get();
    if r.view == View::Generate {
        let n: usize = r.id.as_deref().and_then(|n| n.parse().ok()).unwrap_or(10_000);
        ui.generating.set(true);
        leptos::task::spawn_local(async move {
            let taken: Vec<String> = ui.workspaces.get_untracked().into_iter().map(|(id, _)| id).collect();
            match session::generate(n, &taken).await {
                Ok(ws) => {
                    ui.refresh_list();
                    ui.generating.set(false);
                    set_global("__batonGenerated", &ws);
                    ui.go(&Route::of(&ws, View::Chains));
                }
                Err(e) => {
                    ui.generating.set(false);
                    ui.flash.set(Some(ui::error_text(&e)));
                }
            }
        });
        return;
    }
    if let Some(ws) = r.ws {
        ui.want(&ws);
    }
}

/// What follows a workspace's opening: the one it replaces is closed; a server workspace
/// follows the server's event stream, and one opened from a snapshot reads its history in
/// the background; a workspace that could not be opened is reported and the console goes
/// home. Returns the open session (the next run's `prev`).
fn on_opened(ui: Ui, prev: Option<Option<Rc<Session>>>) -> Option<Rc<Session>> {
    let prev = prev.flatten();
    let now = match ui.opened() {
        Some(Ok(s)) => Some(s),
        Some(Err(why)) => {
            ui.flash.set(Some(why));
            ui.close_workspace();
            ui.go(&Route::default());
            None
        }
        None => None,
    };
    let same = match (&prev, &now) {
        (Some(p), Some(n)) => Rc::ptr_eq(p, n),
        (None, None) => true,
        _ => false,
    };
    if same {
        return now;
    }
    if let Some(old) = prev {
        old.close();
    }
    if let Some(s) = now.clone() {
        if s.remote().is_some() {
            leptos::task::spawn_local(s.clone().follow(move || ui.bump()));
        }
        if s.history_loading.get() {
            leptos::task::spawn_local(async move {
                if let Err(e) = s.load_history().await {
                    ui.flash.set(Some(ui::error_text(&e)));
                }
                ui.bump();
            });
        }
    }
    ui.bump();
    now
}

fn set_global(name: &str, value: &str) {
    let _ = js_sys::Reflect::set(&js_sys::global(), &name.into(), &value.into());
}

fn typing(ev: &web_sys::KeyboardEvent) -> bool {
    ev.target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        .is_some_and(|el| matches!(el.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT"))
}

/// The console.
#[component]
pub fn App() -> impl IntoView {
    let ui = Ui::new(Route::parse(&hash()));
    provide_context(ui);
    ui.refresh_list();
    let on_hash = window_event_listener(leptos::ev::hashchange, move |_| {
        let r = Route::parse(&hash());
        if ui.route.with_untracked(|cur| *cur != r) {
            ui.route.set(r);
        }
    });
    on_cleanup(move || on_hash.remove());
    Effect::new(move |_| follow_route(ui));
    Effect::new(move |prev| on_opened(ui, prev));
    // Each view's mode, kept for the next visit (issue 26: a view's mode across tab switches).
    Effect::new(move |_| ui.route.with(|r| ui.remember_mode(r)));

    // Another tab may have written to the workspace: read its records when this one gets focus.
    let focus = window_event_listener(leptos::ev::focus, move |_| {
        if let Some(s) = ui.current() {
            leptos::task::spawn_local(async move {
                if s.catch_up().await > 0 {
                    ui.bump();
                }
            });
        }
    });
    on_cleanup(move || focus.remove());

    // The virtual clock: while running, each interval moves it by speed × the interval and
    // runs what came due.
    // A server workspace's clock is the wall clock.
    let _ = set_interval_with_handle(
        move || {
            let Some(s) = ui.current() else { return };
            if s.follow_wall_clock() {
                ui.wall.update(|n| *n += 1);
                return;
            }
            if !ui.running.get_untracked() {
                return;
            }
            s.clock.set(s.clock.get().plus(TICK_MS * ui.speed.get_untracked() as u64));
            leptos::task::spawn_local(async move {
                let ran = s.pump(200).await;
                ui.ticked(ran);
            });
        },
        Duration::from_millis(TICK_MS),
    );

    // Keyboard: 1–5 switch views, space runs or pauses the clock; the chains view adds its own.
    let keys = window_event_listener(leptos::ev::keydown, move |ev| {
        if typing(&ev) || ev.ctrl_key() || ev.meta_key() || ev.alt_key() {
            return;
        }
        let r = ui.route.get_untracked();
        let Some(ws) = r.ws.clone() else { return };
        if let Some((view, _, _)) = View::NAV.iter().find(|(_, _, k)| *k == ev.key()) {
            ev.prevent_default();
            ui.go(&ui.route_to(&ws, *view));
        } else if ev.key() == " " {
            ev.prevent_default();
            ui.running.update(|r| *r = !*r);
        }
    });
    on_cleanup(move || keys.remove());

    let place = Memo::new(move |_| ui.route.with(|r| (r.ws.clone(), r.view)));
    view! {
        <header class="bar">
            <a class="brand" href="#/">"Baton"</a>
            <WorkspaceBar/>
            <Clock/>
        </header>
        <Nav/>
        <Flash/>
        <main>{move || page(shown(ui, place.get()))}</main>
    }
}

/// What the main pane shows for a workspace and view kind: `None` while a workspace is generated
/// or opened — except the live swimlanes or chains of one that kept them, shown while it opens —
/// else the view (home when that workspace is not the open one). The pane is built again only
/// when this is read again: not when the selection (`id`, `sub`) or the time (`at`) changes,
/// which views follow reactively.
fn shown(ui: Ui, (ws, view): (Option<String>, View)) -> Option<View> {
    if ui.generating.get() {
        return None;
    }
    if ui.opening() {
        let kept = match view {
            View::Timeline => ui.kept_lanes().is_some(),
            View::Chains => ui.kept_rows().is_some(),
            _ => false,
        };
        return kept.then_some(view);
    }
    if ws.is_none() || view == View::Home || ui.open_ws.get().as_deref() != ws.as_deref() {
        return Some(View::Home);
    }
    Some(view)
}

/// The view [`shown`] names.
fn page(view: Option<View>) -> AnyView {
    match view {
        None => view! { <p class="loading">"Loading…"</p> }.into_any(),
        Some(View::Chains) => view! { <chains::Chains/> }.into_any(),
        Some(View::Missions) => view! { <missions::Missions/> }.into_any(),
        Some(View::Inbox) => view! { <inbox::Inboxes/> }.into_any(),
        Some(View::Thread) => view! { <thread::ThreadView/> }.into_any(),
        Some(View::Timeline) => view! { <timeline::Timeline/> }.into_any(),
        Some(View::Act) => view! { <act::Act/> }.into_any(),
        Some(View::Home | View::Generate) => view! { <Home/> }.into_any(),
    }
}

#[component]
fn Flash() -> impl IntoView {
    let ui = ui::ui();
    view! {
        {move || ui.flash.get().map(|m| view! {
            <div class="flash" role="alert">
                <span>{m}</span>
                <button on:click=move |_| ui.flash.set(None)>"×"</button>
            </div>
        })}
    }
}

#[component]
fn Nav() -> impl IntoView {
    let ui = ui::ui();
    view! {
        {move || {
            let r = ui.route.get();
            r.ws.clone().map(|ws| {
                let tabs = View::NAV.iter().map(|(v, label, key)| {
                    let target = ui.route_to(&ws, *v);
                    let active = r.view == *v || (r.view == View::Thread && *v == View::Chains);
                    view! {
                        <a href=target.to_hash() class:active=active title=format!("key {key}")>
                            {*label}<kbd>{*key}</kbd>
                        </a>
                    }
                }).collect_view();
                let past = r.at.map(|at| {
                    let live = Route { at: None, ..r.clone() };
                    view! {
                        <span class="past" data-testid="past-banner">
                            {format!("Viewing the workspace as of record {at}")}
                            <a href=live.to_hash()>"Back to live"</a>
                        </span>
                    }
                });
                view! { <nav class="tabs">{tabs}{past}</nav> }
            })
        }}
    }
}

#[component]
fn WorkspaceBar() -> impl IntoView {
    let ui = ui::ui();
    let name_of = move || {
        let open = ui.open_ws.get();
        ui.workspaces.get().into_iter().find(|(id, _)| Some(id) == open.as_ref()).map(|(_, n)| n)
    };
    let rename = move |_| {
        let Some(s) = ui.current() else { return };
        let Some(name) = web_sys::window().and_then(|w| w.prompt_with_message("New name").ok().flatten()) else {
            return;
        };
        ui.spawn_action(async move {
            let Some(p) = s.local() else { return Ok(()) };
            p.set_meta("name", &name).await?;
            ui.refresh_list();
            Ok(())
        });
    };
    let export = move |_| {
        let Some(s) = ui.current() else { return };
        let name = name_of().unwrap_or_else(|| s.ws.clone());
        ui.spawn_action(async move {
            let doc = s.export(&name).await?;
            download(&format!("{}.baton.json", s.ws), &doc);
            Ok(())
        });
    };
    let delete = move |_| {
        let Some(s) = ui.current() else { return };
        let question = match s.remote() {
            Some(r) => format!("Forget the connection to '{}'? The workspace stays on the server.", r.server.name()),
            None => format!("Delete workspace '{}' and its whole log?", s.ws),
        };
        let ok = web_sys::window().and_then(|w| w.confirm_with_message(&question).ok()).unwrap_or(false);
        if !ok {
            return;
        }
        let ws = s.ws.clone();
        drop(s);
        // Its session closes first: an open connection would block deleting its database.
        ui.close_workspace();
        ui.spawn_action(async move {
            session::delete(&ws).await?;
            ui.refresh_list();
            ui.go(&Route::default());
            Ok(())
        });
    };
    view! {
        <div class="workspace">
            <select
                aria-label="Workspace"
                data-testid="workspace-select"
                on:change=move |ev| {
                    let v = event_target_value(&ev);
                    if v.is_empty() { ui.go(&Route::default()) } else { ui.go(&Route::of(&v, View::Chains)) }
                }
                prop:value=move || ui.open_ws.get().unwrap_or_default()
            >
                <option value="">"— workspaces —"</option>
                {move || ui.workspaces.get().into_iter().map(|(id, name)| {
                    let sel = ui.open_ws.get().as_deref() == Some(id.as_str());
                    view! { <option value=id.clone() selected=sel>{format!("{name} ({id})")}</option> }
                }).collect_view()}
            </select>
            <Show when=move || ui.open_ws.get().is_some()>
                <Show when=move || !is_server(ui)>
                        <button on:click=rename>"Rename"</button>
                </Show>
                <button on:click=export data-testid="export">"Export"</button>
                <button on:click=delete class="danger" data-testid="delete">
                    {move || if is_server(ui) { "Forget" } else { "Delete" }}
                </button>
            </Show>
            <a href="#/" class="button">"New / import"</a>
        </div>
    }
}

/// The open workspace is on a server.
fn is_server(ui: Ui) -> bool {
    ui.open_ws.get().as_deref().is_some_and(session::is_remote)
}

fn download(file: &str, text: &str) {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else { return };
    let parts = js_sys::Array::of1(&text.into());
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type("application/json");
    let Ok(blob) = web_sys::Blob::new_with_str_sequence_and_options(&parts, &opts) else { return };
    let Ok(url) = web_sys::Url::create_object_url_with_blob(&blob) else { return };
    if let Ok(a) = doc.create_element("a").map(|a| a.unchecked_into::<web_sys::HtmlAnchorElement>()) {
        a.set_href(&url);
        a.set_download(file);
        a.click();
    }
    let _ = web_sys::Url::revoke_object_url(&url);
}

#[component]
fn Clock() -> impl IntoView {
    let ui = ui::ui();
    let run_to = move |target: Option<Timestamp>| {
        let Some(s) = ui.current() else { return };
        let Some(t) = target else { return };
        s.clock.set(s.clock.get().max(t));
        leptos::task::spawn_local(async move {
            while s.pump(500).await > 0 {
                ui.bump();
            }
            s.save_settings().await;
            ui.ticked(0);
        });
    };
    let link = move || {
        ui.with_records(|s| s.remote().map(|r| r.link())).flatten().map(|l| {
            let (text, class) = match l {
                crate::remote::Link::Connecting => ("connecting…", "link"),
                crate::remote::Link::Live => ("live", "link live"),
                crate::remote::Link::Reconnecting => ("reconnecting…", "link warn"),
            };
            view! {
                <span class=class data-testid="link" data-state=text
                    title="Following the server's event stream; the server runs the clock">{text}</span>
            }
        })
    };
    view! {
        <Show when=move || ui.open_ws.get().is_some()>
            <div class="clock">
                <span class="time" data-testid="clock">
                    {move || { ui.wall.track(); ui.with_session(|s| words::clock(s.clock.get())).unwrap_or_default() }}
                </span>
                {link}
                <Show when=move || !is_server(ui)>
                <button data-testid="run" on:click=move |_| ui.running.update(|r| *r = !*r) title="space">
                    {move || if ui.running.get() { "Pause" } else { "Run" }}
                </button>
                <select aria-label="Speed" on:change=move |ev| ui.speed.set(event_target_value(&ev).parse().unwrap_or(60))
                    prop:value=move || ui.speed.get().to_string()>
                    <option value="1">"1×"</option>
                    <option value="10">"10×"</option>
                    <option value="60">"60×"</option>
                    <option value="600">"600×"</option>
                    <option value="3600">"3600×"</option>
                </select>
                <button data-testid="next-event" title="Move the clock to the next demo step or deadline"
                    on:click=move |_| {
                        let next = ui.current().and_then(|s| {
                            s.index_deadlines();
                            let d = s.engine().next_deadline();
                            [d, s.demo_next_at()].into_iter().flatten().min()
                        });
                        run_to(next)
                    }>"Next event"</button>
                {move || ui.with_records(|s| s.demo_progress()).flatten().map(|(done, all, failed)| view! {
                    <span class="demo" data-testid="demo-progress" data-done=(done == all).to_string()>
                        {format!("demo {done}/{all}")}
                        {(!failed.is_empty()).then(|| view! { <span class="warn" title=failed.join("\n")>{format!(" · {} failed", failed.len())}</span> })}
                    </span>
                    <button data-testid="run-to-end" on:click=move |_| run_to(ui.current().and_then(|s| s.demo_end()))>
                        "Run to end"
                    </button>
                })}
                </Show>
            </div>
        </Show>
    }
}

#[component]
fn Home() -> impl IntoView {
    let ui = ui::ui();
    let name = RwSignal::new(String::new());
    let taken = move || ui.workspaces.get_untracked().into_iter().map(|(id, _)| id).collect::<Vec<_>>();
    let demo = move |_| {
        let taken = taken();
        ui.spawn_action(async move {
            let s = session::create_demo(&taken).await?;
            s.pump(100).await;
            ui.refresh_list();
            // The demo opens on its picture, the whole mission on the swimlanes, its clock running.
            ui.show_made(s, View::Timeline);
            ui.running.set(true);
            Ok(())
        });
    };
    let create = move |_| {
        let n = name.get_untracked();
        let n = if n.trim().is_empty() { "Workspace".to_string() } else { n };
        let taken = taken();
        ui.spawn_action(async move {
            let seed = (js_sys::Math::random() * 9.0e15) as u64;
            let start = Timestamp(js_sys::Date::now() as u64);
            let ws = session::create_empty(&n, &taken, seed, start).await?;
            ui.refresh_list();
            ui.go(&Route::of(&ws, View::Act));
            Ok(())
        });
    };
    let import = move |ev: leptos::ev::Event| {
        let input: web_sys::HtmlInputElement = event_target(&ev);
        let Some(file) = input.files().and_then(|f| f.get(0)) else { return };
        let taken = taken();
        ui.spawn_action(async move {
            let text = wasm_bindgen_futures::JsFuture::from(file.text())
                .await
                .ok()
                .and_then(|t| t.as_string())
                .unwrap_or_default();
            let ws = session::import(&text, &taken).await?;
            ui.refresh_list();
            ui.go(&Route::of(&ws, View::Chains));
            Ok(())
        });
    };
    let (url, remote_ws, key) =
        (RwSignal::new(String::new()), RwSignal::new(String::new()), RwSignal::new(String::new()));
    let connect = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let (u, w, k) = (url.get_untracked(), remote_ws.get_untracked(), key.get_untracked());
        let u = if u.trim().is_empty() { "http://127.0.0.1:7410".to_string() } else { u };
        ui.spawn_action(async move {
            let server = crate::remote::connect(&u, &w, &k).await?;
            key.set(String::new());
            ui.refresh_list();
            ui.go(&Route::of(&server.id, View::Chains));
            Ok(())
        });
    };
    view! {
        <section class="home">
            <h1>"Baton console"</h1>
            <p>"See and steer what agents hand to each other: delegation chains, blueprint missions, teammates' inboxes and the log — stored in this browser (IndexedDB), or live on a baton serve server."</p>
            <Show when=move || ui.workspaces.get().is_empty()>
                <div class="offer">
                    <h2>"No workspace yet"</h2>
                    <p>"Load the demo: a lead agent delegates to four agents, a three-stage blueprint chain runs, a quiet reviewer gets nudged, teammates trade relay threads and a sibling hands control back — on a clock you can run, pause and speed up."</p>
                </div>
            </Show>
            <div class="actions">
                <button class="primary" data-testid="load-demo" on:click=demo>"Load the demo workspace"</button>
                <span class="or">"or"</span>
                <input placeholder="New workspace name" prop:value=move || name.get()
                    on:input=move |ev| name.set(event_target_value(&ev))/>
                <button on:click=create>"Create empty"</button>
                <label class="button">"Import JSON…"<input type="file" accept=".json,application/json" class="hidden" on:change=import/></label>
            </div>
            <form class="server" on:submit=connect data-testid="server-form">
                <h2>"Open a server workspace"</h2>
                <p class="hint">"A workspace on a "<code>"baton serve"</code>" server, shown live and acted on through the server. The server must allow this console's origin ("<code>"--cors-origin"</code>"); the key (host or admin) is kept in this browser's localStorage until you forget the workspace."</p>
                <input aria-label="Server URL" data-testid="server-url" placeholder="http://127.0.0.1:7410"
                    prop:value=move || url.get() on:input=move |ev| url.set(event_target_value(&ev))/>
                <input aria-label="Workspace on the server" data-testid="server-workspace" placeholder="workspace"
                    prop:value=move || remote_ws.get() on:input=move |ev| remote_ws.set(event_target_value(&ev))/>
                <input aria-label="Key" data-testid="server-key" type="password" placeholder="host or admin key" autocomplete="off"
                    prop:value=move || key.get() on:input=move |ev| key.set(event_target_value(&ev))/>
                <button type="submit" data-testid="server-connect">"Connect"</button>
            </form>
            <ul class="list">
                {move || ui.workspaces.get().into_iter().map(|(id, name)| {
                    let href = Route::of(&id, View::Chains).to_hash();
                    view! { <li><a href=href>{name}</a>" "<code>{id}</code></li> }
                }).collect_view()}
            </ul>
            <p class="hint">"Keys: 1–5 switch views · space runs or pauses the clock · j/k or ↑/↓ move in lists · ←/→ collapse and expand · Enter opens."</p>
        </section>
    }
}
