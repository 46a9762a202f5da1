//! The swimlane timeline: one lane per agent and teammate, each handoff a bar from spawn to its
//! end (or now) coloured *and* marked by status, marks for reminders, mail, reports, follow-ups
//! and cancels, parent → child links. The layout is `baton_core::view::swimlanes` (pure,
//! tested natively); this draws it on a canvas — thousands of bars would be too many DOM nodes —
//! culled to what is in view. Zoom and pan with the wheel, a drag, or the keys; the time cursor
//! is the scrub (`?at=`): click the time axis, or `,` and `.`; hover for a summary; click a bar
//! (or select one with `n`/`p` and press Enter) to open it.
use crate::route::{Route, View};
use crate::session::Session;
use crate::ui::{self, Ui};
use baton_core::view::words;
use baton_core::view::{
    fit, hit, lane_tops, record_at, record_time, swimlanes, Bar, BarKind, Category, Hit, MarkKind, Marks, Swimlanes,
    Viewport, GUTTER, ROW,
};
use leptos::prelude::*;
use paint::{draw, mark_glyph};
use std::rc::Rc;
use std::sync::Arc;

mod paint;

/// The marks of the open workspace's records, folded as records arrive.
#[derive(Default)]
struct MarkCache {
    ws: String,
    first_seq: u64,
    absorbed: usize,
    marks: Marks,
}

/// The layout of the open workspace (live), with the marks of every record it has (`m`
/// keeps them between layouts: only new records are folded in).
fn layout(s: &Rc<Session>, m: &mut MarkCache) -> Swimlanes {
    crate::mark("baton-lanes-layout");
    let engine = s.engine();
    let st = engine.state();
    let records = s.records.borrow();
    let first = records.first().map_or(0, |r| r.seq);
    if m.ws != s.ws || m.first_seq != first || m.absorbed > records.len() {
        *m = MarkCache { ws: s.ws.clone(), first_seq: first, ..MarkCache::default() };
    }
    for r in records.iter().skip(m.absorbed) {
        m.marks.absorb(r, st);
    }
    m.absorbed = records.len();
    crate::mark("baton-lanes-marks");
    let out = swimlanes(st, &m.marks, s.now(), None);
    crate::mark("baton-lanes-laid-out");
    out
}

/// A bar's one-line summary (hover, selection).
fn summary(data: &Swimlanes, b: &Bar) -> String {
    let end = b.end.unwrap_or(data.end);
    let whose = match b.kind {
        BarKind::Handoff => format!("{} → {}", b.from, data.lanes[b.lane].label),
        BarKind::Relay => format!("{} → @{}", b.from, data.lanes[b.lane].label),
    };
    format!(
        "{} · {} · {} · from {} for {}{}",
        b.label,
        whose,
        words::status(&b.status).0,
        words::clock(b.start),
        words::compact(end.0.saturating_sub(b.start.0)),
        if b.end.is_none() { " (live)" } else { "" }
    )
}

/// Opens a bar: a handoff in the chains view, a relay thread in its inbox.
fn open(ui: Ui, data: &Swimlanes, i: usize) {
    let b = &data.bars[i];
    let r = ui.route.get_untracked();
    let Some(ws) = r.ws.clone() else { return };
    let to = match b.kind {
        BarKind::Handoff => Route { at: r.at, ..Route::of(&ws, View::Chains).with_id(b.id.clone()) },
        BarKind::Relay => Route {
            at: r.at,
            sub: Some(b.id.clone()),
            ..Route::of(&ws, View::Inbox).with_id(data.lanes[b.lane].key.clone())
        },
    };
    ui.go(&to);
}

/// The swimlane view.
#[component]
pub fn Lanes() -> impl IntoView {
    let ui = ui::ui();
    let marks = StoredValue::new_local(MarkCache::default());
    // A new layout counts as a change without comparing 10k bars field by field.
    let data = Memo::new_with_compare(
        move |_| {
            let laid = ui.with_session(|s| marks.try_update_value(|m| layout(s, m))).flatten();
            Arc::new(laid.unwrap_or_default())
        },
        |old, new| old.map(Arc::as_ptr) != new.map(Arc::as_ptr),
    );
    let canvas = NodeRef::<leptos::html::Canvas>::new();
    let vp = RwSignal::new(None::<Viewport>);
    let mouse = RwSignal::new(None::<(f64, f64)>);
    let chosen = RwSignal::new(None::<usize>);
    let drag = RwSignal::new(None::<(f64, f64, Viewport, bool)>);
    let resized = RwSignal::new(0u32);
    let cursor = Memo::new(move |_| {
        let at = ui.at.get()?;
        ui.with_session(|s| record_time(&s.records.borrow(), at)).flatten()
    });
    let width = move || canvas.get_untracked().map_or(1000.0, |c| f64::from(c.client_width()));
    // Fit the whole span, and keep fitting it as the workspace moves on (a demo playing, a
    // server's live records) until the user zooms or pans; `0` fits and follows again.
    let follow = RwSignal::new(true);
    Effect::new(move |_| {
        resized.track();
        let d = data.get();
        if (follow.get() || vp.get_untracked().is_none()) && !d.bars.is_empty() {
            let (y, row) = vp.get_untracked().map_or((0.0, ROW), |v| (v.y, v.row));
            vp.set(Some(Viewport { y, row, ..fit(&d, width()) }));
        }
    });
    // Redraw on any change (the view, the data, the cursor, the selection, the size).
    Effect::new(move |_| {
        resized.track();
        let d = data.get();
        let (Some(c), Some(v)) = (canvas.get(), vp.get()) else { return };
        draw(&c, &d, v, cursor.get(), chosen.get());
    });
    // The canvas follows the window's size.
    let on_resize = leptos::prelude::window_event_listener(leptos::ev::resize, move |_| resized.update(|n| *n += 1));
    on_cleanup(move || on_resize.remove());

    let zoom = move |factor: f64, at_x: f64| {
        follow.set(false);
        vp.update(|v| *v = v.map(|v| v.zoomed(factor, at_x)))
    };
    let pan = move |dx_px: f64, dy_px: f64| {
        if dx_px != 0.0 {
            follow.set(false);
        }
        vp.update(|v| {
            *v = v.map(|v| {
                let (_, total) = lane_tops(&data.get_untracked(), v.row);
                v.panned(dx_px, dy_px, total)
            })
        })
    };
    // Dense rows for very tall lanes: the lane at the top stays there.
    let dense = move || vp.with(|v| v.is_some_and(|v| v.is_dense()));
    let toggle_dense = move || {
        let on = !dense();
        vp.update(|v| *v = v.map(|v| v.dense(&data.get_untracked(), on)));
    };
    let scrub = move |seq: Option<u64>| {
        let r = ui.route.get_untracked();
        ui.go(&Route { at: seq, ..r });
    };
    let hovered = move || {
        let (x, y) = mouse.get()?;
        let d = data.get();
        match hit(&d, vp.get()?, x, y)? {
            Hit::Bar(i) => Some((x, y, summary(&d, &d.bars[i]))),
            Hit::Mark(i) => {
                let m = &d.marks[i];
                let on = m.bar.map(|b| format!(" on {}", d.bars[b].label)).unwrap_or_default();
                Some((x, y, format!("{}{on} · {} · record #{}", m.kind.as_str(), words::clock(m.at), m.seq)))
            }
            Hit::Axis(t) => Some((
                x,
                y,
                format!("{} — click to view the workspace as of then", words::clock(baton_core::Timestamp(t as u64))),
            )),
        }
    };
    let point = |ev: &web_sys::MouseEvent| {
        let el: web_sys::Element = event_target(ev);
        let r = el.get_bounding_client_rect();
        (f64::from(ev.client_x()) - r.left(), f64::from(ev.client_y()) - r.top())
    };
    let on_key = move |ev: web_sys::KeyboardEvent| {
        let d = data.get_untracked();
        let w = width();
        let step = |k: isize| {
            let n = d.bars.len();
            if n == 0 {
                return;
            }
            let next = match chosen.get_untracked() {
                None => {
                    if k > 0 {
                        0
                    } else {
                        n - 1
                    }
                }
                Some(i) => (i as isize + k).rem_euclid(n as isize) as usize,
            };
            chosen.set(Some(next));
            // Bring it into view.
            vp.update(|v| *v = v.map(|v| v.showing(&d, next, w)));
        };
        let handled = match ev.key().as_str() {
            "ArrowLeft" => {
                pan(-w * 0.1, 0.0);
                true
            }
            "ArrowRight" => {
                pan(w * 0.1, 0.0);
                true
            }
            "ArrowUp" => {
                pan(0.0, -vp.get_untracked().map_or(ROW, |v| v.row) * 3.0);
                true
            }
            "ArrowDown" => {
                pan(0.0, vp.get_untracked().map_or(ROW, |v| v.row) * 3.0);
                true
            }
            "+" | "=" => {
                zoom(0.8, GUTTER + (w - GUTTER) / 2.0);
                true
            }
            "-" | "_" => {
                zoom(1.25, GUTTER + (w - GUTTER) / 2.0);
                true
            }
            "d" => {
                toggle_dense();
                true
            }
            "0" | "Home" => {
                follow.set(true);
                let row = vp.get_untracked().map_or(ROW, |v| v.row);
                vp.set(Some(Viewport { row, ..fit(&d, w) }));
                true
            }
            "n" => {
                step(1);
                true
            }
            "p" => {
                step(-1);
                true
            }
            "Enter" => {
                if let Some(i) = chosen.get_untracked() {
                    open(ui, &d, i);
                }
                true
            }
            "Escape" => {
                chosen.set(None);
                true
            }
            "," | "." => {
                let (at, last) = ui
                    .with_session(|s| (ui.at.get_untracked(), s.records.borrow().last().map_or(0, |r| r.seq)))
                    .unwrap_or((None, 0));
                let cur = at.unwrap_or(last);
                let next = if ev.key() == "," { cur.saturating_sub(1).max(1) } else { cur + 1 };
                scrub((next < last).then_some(next));
                true
            }
            _ => false,
        };
        if handled {
            ev.prevent_default();
            ev.stop_propagation();
        }
    };
    let selection = move || chosen.get().and_then(|i| data.with(|d| d.bars.get(i).map(|b| summary(d, b))));

    view! {
        <div class="lanes" data-testid="lanes">
            <div class="legend" aria-label="Legend">
                {Category::LEGEND
                    .into_iter().map(|c| view! { <span class="key"><span class="swatch" style=format!("background:{}", c.colour())>{c.glyph()}</span>{c.label()}</span> }).collect_view()}
                <span class="sep"></span>
                {[MarkKind::Nudge, MarkKind::Message, MarkKind::Report, MarkKind::FollowUp, MarkKind::Cancel]
                    .into_iter().map(|k| view! { <span class="key"><span class="glyph">{mark_glyph(k)}</span>{k.as_str()}</span> }).collect_view()}
                <label class="dense" title="Rows 6 px high, for very tall lanes (key d)">
                    <input type="checkbox" data-testid="lanes-dense" prop:checked=dense on:change=move |_| toggle_dense()/>
                    "Dense"
                </label>
                <span class="hint">"wheel zooms · drag pans · keys: ← → ↑ ↓ + − 0 · d dense · n/p select · Enter open · , . scrub"</span>
            </div>
            <div class="canvas-wrap">
                <canvas node_ref=canvas tabindex="0" data-testid="lanes-canvas" role="img"
                    data-span-ms=move || vp.get().map(|v| ((width() - GUTTER) * v.ms_per_px).round().to_string())
                    data-t0=move || vp.get().map(|v| v.t0.round().to_string())
                    data-lanes-height=move || vp.get().map(|v| lane_tops(&data.get(), v.row).1.round().to_string())
                    aria-label="Swimlanes: one lane per agent and teammate, a bar per handoff; keys n and p select a bar, Enter opens it"
                    on:wheel=move |ev: web_sys::WheelEvent| {
                        ev.prevent_default();
                        let (x, _) = point(&ev);
                        if ev.shift_key() || ev.delta_x().abs() > ev.delta_y().abs() {
                            pan(ev.delta_x() + if ev.shift_key() { ev.delta_y() } else { 0.0 }, 0.0);
                        } else {
                            zoom((ev.delta_y() * 0.0015).exp(), x);
                        }
                    }
                    on:mousedown=move |ev: web_sys::MouseEvent| {
                        let (x, y) = point(&ev);
                        if let Some(v) = vp.get_untracked() { drag.set(Some((x, y, v, false))); }
                    }
                    on:mousemove=move |ev: web_sys::MouseEvent| {
                        let (x, y) = point(&ev);
                        mouse.set(Some((x, y)));
                        if let Some((x0, y0, v0, _)) = drag.get_untracked() {
                            let (dx, dy) = (x - x0, y - y0);
                            if dx.abs() + dy.abs() > 3.0 {
                                drag.set(Some((x0, y0, v0, true)));
                                if dx.abs() > 3.0 { follow.set(false); }
                                let (_, total) = lane_tops(&data.get_untracked(), v0.row);
                                vp.set(Some(v0.panned(-dx, -dy, total)));
                            }
                        }
                    }
                    on:mouseleave=move |_| { mouse.set(None); drag.set(None); }
                    on:mouseup=move |ev: web_sys::MouseEvent| {
                        let dragged = drag.get_untracked().is_some_and(|d| d.3);
                        drag.set(None);
                        if dragged { return; }
                        let (x, y) = point(&ev);
                        let d = data.get_untracked();
                        let Some(v) = vp.get_untracked() else { return };
                        match hit(&d, v, x, y) {
                            Some(Hit::Bar(i)) => open(ui, &d, i),
                            Some(Hit::Mark(i)) => scrub(Some(d.marks[i].seq)),
                            Some(Hit::Axis(t)) => {
                                let seq = ui.with_session(|s| record_at(&s.records.borrow(), t)).flatten();
                                let last = ui.with_session(|s| s.records.borrow().last().map(|r| r.seq)).flatten();
                                scrub(seq.filter(|s| Some(*s) != last));
                            }
                            None => {}
                        }
                    }
                    on:keydown=on_key
                ></canvas>
                {move || hovered().map(|(x, y, text)| view! {
                    <div class="tip" data-testid="lanes-tip" style=format!("left:{}px;top:{}px", x + 14.0, y + 14.0)>{text}</div>
                })}
            </div>
            <p class="selection" data-testid="lanes-selection" aria-live="polite">
                {move || selection().unwrap_or_else(|| format!("{} lanes · {} bars · {} marks", data.with(|d| d.lanes.len()), data.with(|d| d.bars.len()), data.with(|d| d.marks.len())))}
            </p>
        </div>
    }
}
