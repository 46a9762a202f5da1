//! Mission strips as journeys: each blueprint journey's stages as connected steps left to right,
//! as `mission_strip` reports them (spawned, expected or skipped, with the coding-agent badge),
//! each step's state told by a glyph and a label as well as its colour, the journey's progress
//! above, and links to the stage's thread and handoff.
use crate::route::{Route, View};
use crate::ui::{self};
use baton_core::surface::host::{MissionStage, ThreadRef};
use baton_core::view::words;
use baton_core::view::Category;
use baton_core::{StageState, Status, ThreadId};
use leptos::prelude::*;

/// The missions view.
#[component]
pub fn Missions() -> impl IntoView {
    let ui = ui::ui();
    let strips = Memo::new(move |_| {
        let at = ui.at.get();
        ui.with_engine(at, |e, now| {
            let st = e.state();
            // Journey roots: threads carrying a journey whose parent carries none.
            let mut roots: Vec<_> = st
                .threads
                .values()
                .filter(|t| t.journey.is_some() && t.deleted_at.is_none())
                .filter(|t| {
                    t.parent_thread_id.as_ref().and_then(|p| st.threads.get(p)).is_none_or(|p| p.journey.is_none())
                })
                .map(|t| (t.seq, t.thread_id.to_string(), t.title.clone().unwrap_or_else(|| t.thread_id.to_string())))
                .collect();
            roots.sort();
            roots
                .into_iter()
                .map(|(_, id, title)| {
                    let strip = e.previews().mission_strip(ThreadRef { thread_id: ThreadId::from(id.as_str()) }, now);
                    (id, title, strip)
                })
                .collect::<Vec<_>>()
        })
        .unwrap_or_default()
    });
    view! {
        <section class="pane missions" data-testid="missions">
            {move || {
                let ws = ui.route.with(|r| r.ws.clone()).unwrap_or_default();
                let at = ui.route.with(|r| r.at);
                let list = strips.get();
                if list.is_empty() {
                    return view! { <p class="empty">"No blueprint journey in this workspace yet."</p> }.into_any();
                }
                list.into_iter().map(|(id, title, strip)| {
                    let (journey, stages, error) = match strip {
                        Ok(s) => (s.journey, s.stages, None),
                        Err(e) => (String::new(), Vec::new(), Some(ui::error_text(&e))),
                    };
                    let ws = ws.clone();
                    let steps: Vec<Step> = stages.iter().map(Step::of).collect();
                    let (done, all) = (steps.iter().filter(|s| s.kind == "done").count(), steps.len());
                    let kinds = [Category::Live, Category::WatchExpired, Category::Failed, Category::Cancelled, Category::Rejected]
                        .map(|c| (c.as_str(), c.label()));
                    let tally = kinds.iter().chain([("expected", "expected"), ("skipped", "skipped")].iter())
                        .filter_map(|(k, word)| { let n = steps.iter().filter(|s| s.kind == *k).count(); (n > 0).then(|| format!("{n} {word}")) })
                        .collect::<Vec<_>>()
                        .join(" · ");
                    let pct = (done * 100).checked_div(all).unwrap_or(0);
                    view! {
                        <article class="strip" data-testid="journey">
                            <h2>{journey}" · "<a href=Route::of(&ws, View::Thread).with_id(id.clone()).to_hash()>{title}</a></h2>
                            <div class="progress" role="progressbar" aria-valuemin="0" aria-valuemax=all.to_string() aria-valuenow=done.to_string()
                                aria-label="Stages done" data-testid="journey-progress">
                                <div class="fill" style=format!("width:{pct}%")></div>
                                <span>{if tally.is_empty() { format!("{done} of {all} stages done") } else { format!("{done} of {all} stages done · {tally}") }}</span>
                            </div>
                            {error.map(|e| view! { <p class="error">{e}</p> })}
                            <ol class="journey">
                                {steps.into_iter().enumerate().map(|(i, st)| {
                                    let link = st.thread.clone().map(|t| { let href = Route { at, ..Route::of(&ws, View::Thread).with_id(t.clone()) }.to_hash(); view! { <a href=href title="the stage's thread">"thread"</a> } });
                                    let handoff = st.handoff.clone().map(|h| view! {
                                        <a href=Route { mode: Some("graph".into()), at, ..Route::of(&ws, View::Chains).with_id(h) }.to_hash() title="the stage's handoff">"handoff"</a>
                                    });
                                    view! {
                                        <li class=format!("step {} {}", st.state, st.kind) data-testid="stage">
                                            <span class="marker" aria-hidden="true" style=st.colour.map(|c| format!("background:{c}"))>{st.glyph}</span>
                                            <div class="body">
                                                <div class="name">{format!("{}. {}", i + 1, st.name)}</div>
                                                <div class="state">{st.label.clone()}</div>
                                                {st.coding_agent.clone().map(|c| view! { <span class="badge coding">{format!("⌨ {c}")}</span> })}
                                                <div class="links">{link}" "{handoff}</div>
                                            </div>
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

/// One step of a journey, read from a `mission_strip` stage.
struct Step {
    name: String,
    /// `spawned`, `expected` or `skipped` (the strip's own state).
    state: String,
    /// What the step shows: `expected` or `skipped`, or its handoff's category (`live`,
    /// `done`, `failed`, `cancelled`, …: core's one palette).
    kind: &'static str,
    glyph: &'static str,
    /// The marker's colour (`None`: drawn as expected or skipped).
    colour: Option<&'static str>,
    label: String,
    thread: Option<String>,
    handoff: Option<String>,
    coding_agent: Option<String>,
}

impl Step {
    fn of(st: &MissionStage) -> Step {
        let state = st.state.as_str().to_string();
        let status = st.status.as_deref();
        let (kind, glyph, colour) = match st.state {
            StageState::Skipped => ("skipped", "⤼", None),
            StageState::Expected => ("expected", "○", None),
            _ => {
                let status = Status::ALL.into_iter().find(|s| Some(s.as_str()) == status);
                let cat = Category::of(Some(status.unwrap_or(Status::Started)));
                (cat.as_str(), cat.glyph(), Some(cat.colour()))
            }
        };
        Step {
            name: st.blueprint.clone(),
            label: match status {
                Some(s) => format!("{state} · {}", words::status(s).0),
                None => state.clone(),
            },
            state,
            kind,
            glyph,
            colour,
            thread: st.thread_id.as_ref().map(ToString::to_string),
            handoff: st.handoff_id.clone().flatten().map(|h| h.to_string()),
            coding_agent: st.coding_agent.clone(),
        }
    }
}
