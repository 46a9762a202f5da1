//! Reactive state shared by the views, and small helpers. Everything a user sent is shown as
//! text nodes (Leptos escapes text); nothing here builds HTML from data.
use crate::route::{Route, View};
use crate::session::{self, Kept, NotOpened, Session};
use baton_core::view::{words, Category, ChainRow, Swimlanes};
use baton_core::{CallError, Engine, NoStorage, Timestamp};
use leptos::prelude::*;
use serde_json::Value;
use std::rc::Rc;
use std::sync::Arc;

/// Signals every view reads. `records` moves after every change to the open workspace's
/// records, `clock` each time its clock moves: a view tracks the ones it depends on.
#[derive(Clone, Copy)]
pub struct Ui {
    /// Moves when the open workspace's records changed (and what comes with them: effects,
    /// the demo's progress, the history read in).
    records: RwSignal<u64>,
    /// Moves when the open workspace's clock moved ("now" for every live view).
    clock: RwSignal<u64>,
    /// Where the console is.
    pub route: RwSignal<Route>,
    /// The record the views show the workspace as of (`None`: live). A memo, so selecting
    /// a row (a route change) does not recompute views that depend only on this.
    pub at: Memo<Option<u64>>,
    /// Workspaces: (id, display name).
    pub workspaces: RwSignal<Vec<(String, String)>>,
    /// The workspace to show: the last one a route named, until it is deleted or forgotten
    /// (going home leaves it open).
    wanted: RwSignal<Option<String>>,
    /// The wanted workspace, opened: a resource keyed on `wanted` (the last one wanted is what
    /// stays); `Err` says why it could not be opened. Written here rather than with Leptos'
    /// `LocalResource`, which adds 11.8 KB (gzipped) to a console above its size budget.
    opened: RwSignal<Opened, LocalStorage>,
    /// The open workspace's id, once loaded.
    pub open_ws: Memo<Option<String>>,
    /// A message for the user (errors of workspace actions).
    pub flash: RwSignal<Option<String>>,
    /// The clock runs.
    pub running: RwSignal<bool>,
    /// Virtual milliseconds per real millisecond.
    pub speed: RwSignal<u32>,
    /// Generating a large workspace (`#/generate/N`).
    pub generating: RwSignal<bool>,
    /// Moves each interval while a server workspace is open (its clock is the wall clock).
    pub wall: RwSignal<u64>,
    /// A session the console made itself (the demo), taken by the resource instead of
    /// opening the workspace again.
    made: StoredValue<Option<Rc<Session>>, LocalStorage>,
    /// A view the wanted workspace kept at its last record, while it opens: the view shows it
    /// until the engine has read the log (issue 26 item 4).
    kept: RwSignal<Option<(String, Kept)>>,
    /// Each view's last mode (`&mode=`: the chains' graph, the timeline's records), so going
    /// back to a view shows it as it was left.
    modes: StoredValue<Vec<(View, String)>, LocalStorage>,
}

/// What opening the wanted workspace gave: nothing wanted, its session, or why not.
type Opened = Option<Result<Rc<Session>, String>>;

/// The session an opening gave, if it gave one.
fn session_of(o: &Opened) -> Option<&Rc<Session>> {
    o.as_ref()?.as_ref().ok()
}

impl Ui {
    /// New signals; the clock starts paused at 60×.
    pub fn new(route: Route) -> Ui {
        let route = RwSignal::new(route);
        let wanted = RwSignal::new(None::<String>);
        let made = StoredValue::new_local(None);
        let opened = RwSignal::new_local(None);
        let kept = RwSignal::new(None::<(String, Kept)>);
        // Opens what is wanted, each time that changes. An opening that finishes after another
        // workspace became the wanted one is dropped (closed), so the last one wanted is what
        // stays, whatever order the openings finish in.
        Effect::new(move |_| {
            let Some(ws) = wanted.get() else {
                opened.set(None);
                return;
            };
            leptos::task::spawn_local(async move {
                let made = made.try_update_value(Option::take).flatten().filter(|s: &Rc<Session>| s.ws == ws);
                let is_wanted = || wanted.with_untracked(|w| w.as_deref() == Some(ws.as_str()));
                let result = match made {
                    Some(s) => Ok(s),
                    None => {
                        // The live swimlanes or chains asked for: show what the workspace kept
                        // of them, if anything, while it opens.
                        let (view, mode, live) = route.with_untracked(|r| (r.view, r.mode.is_none(), r.at.is_none()));
                        let shown = match view {
                            View::Timeline if mode && live => {
                                session::kept_lanes(&ws).await.map(|(seq, now, l)| (seq, now, Kept::Lanes(Arc::new(l))))
                            }
                            View::Chains if live => {
                                session::kept_rows(&ws).await.map(|(seq, now, r)| (seq, now, Kept::Rows(Arc::new(r))))
                            }
                            _ => None,
                        };
                        if let Some((.., shown)) = shown.as_ref().filter(|_| is_wanted()) {
                            kept.set(Some((ws.clone(), shown.clone())));
                        }
                        let opened = session::open_any(&ws).await;
                        // What was read back is kept already (a layout at that record does not
                        // store it again), and it is the view's own until the log or the clock
                        // moves.
                        if let (Ok(s), Some((seq, now, shown))) = (&opened, shown) {
                            s.reuse(seq, now, shown);
                        }
                        opened.map_err(|e| match e {
                            NotOpened::Missing(why) => why,
                            NotOpened::Failed(e) => error_text(&e),
                        })
                    }
                };
                if is_wanted() {
                    opened.set(Some(result));
                } else if let Ok(s) = result {
                    s.close();
                }
                kept.update(|k| {
                    if k.as_ref().is_some_and(|(w, _)| *w == ws) {
                        *k = None;
                    }
                });
            });
        });
        Ui {
            records: RwSignal::new(0),
            clock: RwSignal::new(0),
            route,
            at: Memo::new(move |_| route.with(|r| r.at)),
            workspaces: RwSignal::new(Vec::new()),
            wanted,
            opened,
            open_ws: Memo::new(move |_| opened.with(|o| session_of(o).map(|s| s.ws.clone()))),
            flash: RwSignal::new(None),
            running: RwSignal::new(false),
            speed: RwSignal::new(60),
            generating: RwSignal::new(false),
            wall: RwSignal::new(0),
            made,
            kept,
            modes: StoredValue::new_local(Vec::new()),
        }
    }

    /// Shows workspace `ws` (opening it unless it is the one open); another workspace's
    /// clock starts paused.
    pub fn want(&self, ws: &str) {
        if self.wanted.with_untracked(|w| w.as_deref() != Some(ws)) {
            self.running.set(false);
            self.wanted.set(Some(ws.to_string()));
        }
    }

    /// Shows `s`, a session the console has just made, on its route (not opened again).
    pub fn show_made(&self, s: Rc<Session>, view: View) {
        let ws = s.ws.clone();
        self.made.set_value(Some(s));
        self.want(&ws);
        self.go(&Route::of(&ws, view));
    }

    /// Closes the open workspace and shows none (before deleting or forgetting it: an open
    /// connection would block deleting its database).
    pub fn close_workspace(&self) {
        if let Some(s) = self.current() {
            s.close();
        }
        self.wanted.set(None);
    }

    /// A workspace is being opened: one is wanted and it is not (yet) the open one.
    pub fn opening(&self) -> bool {
        let wanted = self.wanted.get();
        wanted.is_some() && wanted != self.open_ws.get()
    }

    /// What the last opening gave (tracked): the session, why it failed, or nothing.
    pub fn opened(&self) -> Opened {
        self.opened.get()
    }

    /// Notes the mode the route shows its view in (none: the view's first drawing).
    pub fn remember_mode(&self, r: &Route) {
        self.modes.update_value(|m| {
            m.retain(|(v, _)| *v != r.view);
            if let Some(mode) = &r.mode {
                m.push((r.view, mode.clone()));
            }
        });
    }

    /// The route to `view` of workspace `ws`, in the mode it was last left in, at the time
    /// the console shows now.
    pub fn route_to(&self, ws: &str, view: View) -> Route {
        let (at, here) = self.route.with_untracked(|r| (r.at, (r.view == view).then(|| r.mode.clone())));
        let mode = here.unwrap_or_else(|| {
            self.modes.with_value(|m| m.iter().find(|(v, _)| *v == view).map(|(_, mode)| mode.clone()))
        });
        Route { at, mode, ..Route::of(ws, view) }
    }

    /// The open session, if any (untracked: for actions; views use [`Ui::with_session`]).
    pub fn current(&self) -> Option<Rc<Session>> {
        self.opened.with_untracked(|o| session_of(o).cloned())
    }

    /// Reads the open session (tracking its records and its clock), or `None`.
    pub fn with_session<R>(&self, f: impl FnOnce(&Rc<Session>) -> R) -> Option<R> {
        self.clock.track();
        self.with_records(f)
    }

    /// Reads the open session for what depends on its records only, not on the time (a
    /// record list, a count, the effects): a moving clock leaves it alone.
    pub fn with_records<R>(&self, f: impl FnOnce(&Rc<Session>) -> R) -> Option<R> {
        self.records.track();
        // While another workspace opens, the one still open is not shown.
        let wanted = |s: &Rc<Session>| self.wanted.with_untracked(|w| w.as_deref() == Some(s.ws.as_str()));
        self.current().filter(wanted).map(|s| f(&s))
    }

    /// The view the wanted workspace kept, while it opens (tracked).
    fn kept(&self) -> Option<Kept> {
        let wanted = self.wanted.get();
        self.kept.with(|k| k.as_ref().filter(|(ws, _)| Some(ws) == wanted.as_ref()).map(|(_, v)| v.clone()))
    }

    /// The swimlanes the wanted workspace kept, while it opens (tracked).
    pub fn kept_lanes(&self) -> Option<Arc<Swimlanes>> {
        match self.kept()? {
            Kept::Lanes(l) => Some(l),
            Kept::Rows(_) => None,
        }
    }

    /// The chain rows the wanted workspace kept, while it opens (tracked).
    pub fn kept_rows(&self) -> Option<Arc<Vec<ChainRow>>> {
        match self.kept()? {
            Kept::Rows(r) => Some(r),
            Kept::Lanes(_) => None,
        }
    }

    /// Reads the open session's engine as of record `at` with the time it shows
    /// ([`Session::with_engine`]). A past record fixes that time, so the clock is tracked only
    /// when the live engine is shown (`at` none or the latest, or its history still loading).
    pub fn with_engine<R>(&self, at: Option<u64>, f: impl FnOnce(&Engine<NoStorage>, Timestamp) -> R) -> Option<R> {
        self.with_records(|s| {
            if s.shown_past(at).is_none() {
                self.clock.track();
            }
            s.with_engine(at, f)
        })
    }

    /// Goes to a route: a new history entry, and `route` at once (the `hashchange` event comes
    /// later, so keys pressed in between already see the new place).
    pub fn go(&self, r: &Route) {
        if let Some(w) = web_sys::window() {
            let _ = w.location().set_hash(&r.to_hash());
        }
        if self.route.with_untracked(|cur| cur != r) {
            self.route.set(r.clone());
        }
    }

    /// Runs an async action and reports an error in the flash line.
    pub fn spawn_action<F>(&self, fut: F)
    where
        F: std::future::Future<Output = Result<(), CallError>> + 'static,
    {
        let ui = *self;
        leptos::task::spawn_local(async move {
            if let Err(e) = fut.await {
                ui.flash.set(Some(error_text(&e)));
            }
            ui.bump();
        });
    }

    /// Marks the workspace's records changed.
    pub fn bump(&self) {
        self.records.update(|v| *v += 1);
    }

    /// Marks the workspace's clock moved, and its records changed if `ran` commands ran.
    pub fn ticked(&self, ran: usize) {
        self.clock.update(|v| *v += 1);
        if ran > 0 {
            self.bump();
        }
    }

    /// Refreshes the workspace list.
    pub fn refresh_list(&self) {
        let ui = *self;
        leptos::task::spawn_local(async move {
            match session::list().await {
                Ok(l) => ui.workspaces.set(l),
                Err(e) => ui.flash.set(Some(e.to_string())),
            }
        });
    }
}

/// The signals, as the app provides them to every view (a component's body reads them once;
/// its handlers and tasks keep the copy: `Ui` is `Copy`).
pub fn ui() -> Ui {
    expect_context::<Ui>()
}

/// A JSON value as text for a table cell.
pub fn cell(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => "—".into(),
        other => serde_json::to_string_pretty(other).unwrap_or_default(),
    }
}

/// An error as one line with its code name and rule.
pub fn error_text(e: &CallError) -> String {
    let mut s = format!("{} ({})", e.message, e.code.name());
    if let Some(rule) = e.rule {
        s.push_str(&format!(" · rule {rule}"));
    }
    s
}

/// Why the engine would not take a previewed action (`None`: it would): its error, or what
/// `refusal` finds in an answer that refuses without an error (`success: false`).
pub fn refused<T>(preview: Result<T, CallError>, refusal: impl FnOnce(&T) -> Option<String>) -> Option<String> {
    match preview {
        Err(e) => Some(error_text(&e)),
        Ok(v) => refusal(&v),
    }
}

/// For [`refused`]: an answer that never refuses without an error.
pub fn answered<T>(_: &T) -> Option<String> {
    None
}

/// "Not offered now — name: why · …" for the actions `refused` turned down (empty if none).
pub fn not_offered(names: &[&str], why: &[Option<String>]) -> String {
    let why: Vec<String> = names.iter().zip(why).filter_map(|(n, w)| w.as_ref().map(|w| format!("{n}: {w}"))).collect();
    if why.is_empty() {
        String::new()
    } else {
        format!("Not offered now — {}", why.join(" · "))
    }
}

/// The field an error names, if any.
pub fn error_field(e: &CallError) -> Option<String> {
    e.field.clone()
}

/// A key/value table of an answer as the model reads it (its JSON form), every field shown.
pub fn kv_table(answer: &impl serde::Serialize) -> impl IntoView {
    let v = serde_json::to_value(answer).unwrap_or(Value::Null);
    let rows: Vec<(String, String)> = match &v {
        Value::Object(m) => m.iter().map(|(k, v)| (k.clone(), cell(v))).collect(),
        other => vec![("value".into(), cell(other))],
    };
    view! {
        <table class="kv">
            <tbody>
                {rows.into_iter().map(|(k, v)| view! { <tr><th>{k}</th><td><pre>{v}</pre></td></tr> }).collect_view()}
            </tbody>
        </table>
    }
}

/// A previewed answer as a table: the answer as the model reads it, or the error.
pub fn answer_table<T: serde::Serialize>(r: &Result<T, CallError>) -> impl IntoView {
    match r {
        Ok(v) => kv_table(v).into_any(),
        Err(e) => kv_table(&e.to_json()).into_any(),
    }
}

/// A button that copies a full id to the clipboard (the views show ids shortened).
pub fn copy_id(id: String) -> AnyView {
    let title = format!("Copy {id}");
    view! {
        <button class="copy" title=title data-testid="copy-id" on:click=move |_| {
            if let Some(w) = web_sys::window() {
                // The promise is left alone: a refused write changes nothing on the page.
                let _ = w.navigator().clipboard().write_text(&id);
            }
        }>"copy"</button>
    }
    .into_any()
}

/// A JSON value for a person: a collapsible tree (objects and lists fold, scalars read as
/// text), with empty fields left out.
pub fn json_tree(v: &Value) -> AnyView {
    fn empty(v: &Value) -> bool {
        match v {
            Value::Null => true,
            Value::String(s) => s.is_empty(),
            Value::Array(a) => a.is_empty(),
            Value::Object(o) => o.is_empty(),
            _ => false,
        }
    }
    fn node(key: String, v: &Value) -> AnyView {
        match v {
            Value::Object(o) => {
                let n = o.values().filter(|v| !empty(v)).count();
                view! {
                    <li><details open=n <= 6><summary><b>{key}</b>{format!(" · {n} fields")}</summary>{json_tree(v)}</details></li>
                }
                .into_any()
            }
            Value::Array(a) => view! {
                <li><details open=a.len() <= 6><summary><b>{key}</b>{format!(" · {} items", a.len())}</summary>{json_tree(v)}</details></li>
            }
            .into_any(),
            other => view! { <li><b>{key}</b>": "{cell(other)}</li> }.into_any(),
        }
    }
    let items: Vec<AnyView> = match v {
        Value::Object(o) => o.iter().filter(|(_, v)| !empty(v)).map(|(k, v)| node(k.clone(), v)).collect(),
        Value::Array(a) => {
            a.iter().enumerate().filter(|(_, v)| !empty(v)).map(|(i, v)| node(format!("{}", i + 1), v)).collect()
        }
        other => vec![view! { <li>{cell(other)}</li> }.into_any()],
    };
    view! { <ul class="json-tree">{items}</ul> }.into_any()
}

/// A moment relative to `now`, with the absolute one on hover.
pub fn when(now: Timestamp, at: Timestamp) -> AnyView {
    view! { <span title=words::absolute(at)>{words::relative(now, at)}</span> }.into_any()
}

/// A status as a badge in its category's colour and glyph (core's one palette), with `text`
/// and, on hover, `meaning`.
pub fn status_badge(cat: Category, text: &str, meaning: &'static str) -> AnyView {
    view! {
        <span class="badge status" style=format!("--cat: {}", cat.colour()) title=meaning>{format!("{} {text}", cat.glyph())}</span>
    }
    .into_any()
}
