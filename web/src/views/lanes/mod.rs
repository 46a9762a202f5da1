//! The swimlane timeline: one lane per agent and teammate, each handoff a bar from spawn to its
//! end (or now) coloured *and* marked by status, marks for reminders, mail, reports, follow-ups
//! and cancels, parent → child links. The layout is `baton_core::view::swimlanes` (pure,
//! tested natively); this draws it on a canvas — thousands of bars would be too many DOM nodes —
//! culled to what is in view. Zoom and pan with the wheel, a drag, or the keys; the time cursor
//! is the scrub (`?at=`): click the time axis, or `,` and `.`; hover for a summary; click a bar
//! (or select one with `n`/`p` and press Enter) to open it.
use crate::session::{Kept, Session};
use crate::ui;
use baton_core::view::words;
use baton_core::view::{
    decimal, fit, hit, lane_tops, record_time, swimlanes, Bar, BarKind, Category, Hit, MarkKind, Marks, Swimlanes,
    Viewport, GUTTER, ROW,
};
use input::Controls;
use leptos::prelude::*;
use paint::{draw, mark_glyph};
use std::rc::Rc;
use std::sync::Arc;

mod input;
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
fn layout(s: &Rc<Session>, m: &mut MarkCache) -> Arc<Swimlanes> {
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
    let out = Arc::new(swimlanes(st, &m.marks, s.now(), None));
    crate::mark("baton-lanes-laid-out");
    drop((records, engine));
    s.keep_lanes(&out);
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

/// The swimlane view.
#[component]
pub fn Lanes() -> impl IntoView {
    let ui = ui::ui();
    let marks = StoredValue::new_local(MarkCache::default());
    // A new layout counts as a change without comparing 10k bars field by field.
    let data = Memo::new_with_compare(
        move |_| {
            // While the workspace opens, the swimlanes it kept at its last record.
            if let Some(kept) = ui.kept_lanes() {
                return kept;
            }
            let laid = ui.with_session(|s| match s.reused() {
                // Lanes read back while the workspace opened, while neither its log nor its
                // clock moved.
                Some(Kept::Lanes(lanes)) => Some(lanes),
                _ => marks.try_update_value(|m| layout(s, m)),
            });
            laid.flatten().unwrap_or_default()
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
        ui.with_records(|s| record_time(&s.records.borrow(), at)).flatten()
    });
    // Fit the whole span, and keep fitting it as the workspace moves on (a demo playing, a
    // server's live records) until the user zooms or pans; `0` fits and follows again.
    let follow = RwSignal::new(true);
    let input = Controls { ui, data, vp, mouse, chosen, drag, follow, canvas };
    let width = move || input.width();
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
                    <input type="checkbox" data-testid="lanes-dense" prop:checked=move || input.dense() on:change=move |_| input.toggle_dense()/>
                    "Dense"
                </label>
                <span class="hint">"wheel zooms · drag pans · keys: ← → ↑ ↓ + − 0 · d dense · n/p select · Enter open · , . scrub"</span>
            </div>
            <div class="canvas-wrap">
                <canvas node_ref=canvas tabindex="0" data-testid="lanes-canvas" role="img"
                    data-span-ms=move || vp.get().map(|v| decimal(((width() - GUTTER) * v.ms_per_px).round()))
                    data-t0=move || vp.get().map(|v| decimal(v.t0.round()))
                    data-lanes-height=move || vp.get().map(|v| decimal(lane_tops(&data.get(), v.row).1.round()))
                    aria-label="Swimlanes: one lane per agent and teammate, a bar per handoff; keys n and p select a bar, Enter opens it"
                    on:wheel=move |ev| input.wheel(ev)
                    on:mousedown=move |ev| input.mouse_down(ev)
                    on:mousemove=move |ev| input.mouse_move(ev)
                    on:mouseleave=move |_| input.mouse_leave()
                    on:mouseup=move |ev| input.mouse_up(ev)
                    on:keydown=move |ev| input.key(ev)
                ></canvas>
                {move || hovered().map(|(x, y, text)| view! {
                    <div class="tip" data-testid="lanes-tip" style=format!("left:{}px;top:{}px", decimal(x + 14.0), decimal(y + 14.0))>{text}</div>
                })}
            </div>
            <p class="selection" data-testid="lanes-selection" aria-live="polite">
                {move || selection().unwrap_or_else(|| format!("{} lanes · {} bars · {} marks", data.with(|d| d.lanes.len()), data.with(|d| d.bars.len()), data.with(|d| d.marks.len())))}
            </p>
        </div>
    }
}
