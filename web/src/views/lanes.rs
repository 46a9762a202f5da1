//! The swimlane timeline: one lane per agent and teammate, each handoff a bar from spawn to its
//! end (or now) coloured *and* marked by status, marks for reminders, mail, reports, follow-ups
//! and cancels, parent → child links. The layout is `baton_core::view::swimlanes` (pure,
//! tested natively); this draws it on a canvas — thousands of bars would be too many DOM nodes —
//! culled to what is in view. Zoom and pan with the wheel, a drag, or the keys; the time cursor
//! is the scrub (`?at=`): click the time axis, or `,` and `.`; hover for a summary; click a bar
//! (or select one with `n`/`p` and press Enter) to open it.
use crate::route::{Route, View};
use crate::session::Session;
use crate::ui::{self, clock_text, dur, Ui};
use baton_core::view::{swimlanes, Bar, BarKind, Category, LaneKind, MarkKind, Marks, Swimlanes};
use baton_core::LogRecord;
use leptos::prelude::*;
use std::rc::Rc;
use std::sync::Arc;
use wasm_bindgen::JsCast;

/// Lane labels' width.
const GUTTER: f64 = 150.0;
/// The time axis' height.
const AXIS: f64 = 28.0;
/// One row of bars.
const ROW: f64 = 22.0;
/// Space between lanes.
const LANE_PAD: f64 = 10.0;

/// Where the view looks: the time at the left edge of the plot, milliseconds per pixel, and
/// how far the lanes are scrolled down.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Viewport {
    t0: f64,
    ms_per_px: f64,
    y: f64,
}

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

/// Lane tops (before scrolling), and the total height.
fn lane_tops(data: &Swimlanes) -> (Vec<f64>, f64) {
    let mut tops = Vec::with_capacity(data.lanes.len());
    let mut y = 0.0;
    for l in &data.lanes {
        tops.push(y);
        y += f64::from(l.rows) * ROW + LANE_PAD;
    }
    (tops, y)
}

fn mark_glyph(k: MarkKind) -> &'static str {
    match k {
        MarkKind::Nudge => "▲",
        MarkKind::Message => "●",
        MarkKind::Report => "◆",
        MarkKind::FollowUp => "■",
        MarkKind::Cancel => "✕",
    }
}

/// What is under a point of the canvas.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Hit {
    Bar(usize),
    Mark(usize),
    Axis(f64),
}

fn hit(data: &Swimlanes, vp: Viewport, x: f64, y: f64) -> Option<Hit> {
    if x < GUTTER {
        return None;
    }
    let t = vp.t0 + (x - GUTTER) * vp.ms_per_px;
    if y < AXIS {
        return Some(Hit::Axis(t));
    }
    let (tops, _) = lane_tops(data);
    let ly = y - AXIS + vp.y;
    let lane = tops.iter().rposition(|top| *top <= ly)?;
    let row = ((ly - tops[lane]) / ROW).floor();
    if row < 0.0 || row >= f64::from(data.lanes[lane].rows) {
        return None;
    }
    let row = row as u32;
    let slack = 5.0 * vp.ms_per_px;
    if let Some(i) =
        data.marks.iter().position(|m| m.lane == lane && m.row == row && (m.at.0 as f64 - t).abs() <= slack)
    {
        return Some(Hit::Mark(i));
    }
    let now = data.end.0 as f64;
    data.bars
        .iter()
        .position(|b| {
            b.lane == lane
                && b.row == row
                && b.start.0 as f64 - slack <= t
                && t <= b.end.map_or(now, |e| e.0 as f64).max(b.start.0 as f64 + 2.0 * slack)
        })
        .map(Hit::Bar)
}

/// The whole span in the width.
fn fit(data: &Swimlanes, width: f64) -> Viewport {
    let span = (data.end.0.saturating_sub(data.start.0)).max(60_000) as f64;
    let plot = (width - GUTTER - 20.0).max(100.0);
    Viewport { t0: data.start.0 as f64 - span * 0.02, ms_per_px: span * 1.04 / plot, y: 0.0 }
}

/// A tick step (ms) at least ~90 px apart.
fn tick_step(ms_per_px: f64) -> f64 {
    const STEPS: [f64; 16] = [
        1e3,
        5e3,
        15e3,
        30e3,
        60e3,
        300e3,
        900e3,
        1_800e3,
        3_600e3,
        10_800e3,
        21_600e3,
        43_200e3,
        86_400e3,
        604_800e3,
        2_592_000e3,
        31_536_000e3,
    ];
    STEPS.into_iter().find(|s| s / ms_per_px >= 90.0).unwrap_or(31_536_000e3)
}

fn tick_label(t: f64, step: f64) -> String {
    let full = clock_text(baton_core::Timestamp(t as u64));
    if step < 60e3 {
        full.get(11..19).unwrap_or(&full).to_string()
    } else if step < 86_400e3 {
        full.get(11..16).unwrap_or(&full).to_string()
    } else {
        full.get(..10).unwrap_or(&full).to_string()
    }
}

/// Draws the lanes; the time it took goes to `window.__batonFrames` when a bench set it.
fn draw(
    canvas: &web_sys::HtmlCanvasElement,
    data: &Swimlanes,
    vp: Viewport,
    cursor: Option<f64>,
    chosen: Option<usize>,
) {
    let perf = web_sys::window().and_then(|w| w.performance());
    let started = perf.as_ref().map_or(0.0, |p| p.now());
    let dpr = web_sys::window().map_or(1.0, |w| w.device_pixel_ratio());
    let (w, h) = (f64::from(canvas.client_width()), f64::from(canvas.client_height()));
    if w <= 0.0 || h <= 0.0 {
        return;
    }
    let (pw, ph) = ((w * dpr) as u32, (h * dpr) as u32);
    if canvas.width() != pw || canvas.height() != ph {
        canvas.set_width(pw);
        canvas.set_height(ph);
    }
    let Some(ctx) =
        canvas.get_context("2d").ok().flatten().and_then(|c| c.dyn_into::<web_sys::CanvasRenderingContext2d>().ok())
    else {
        return;
    };
    let _ = ctx.set_transform(dpr, 0.0, 0.0, dpr, 0.0, 0.0);
    ctx.set_fill_style_str("#ffffff");
    ctx.fill_rect(0.0, 0.0, w, h);
    let x_of = |t: f64| GUTTER + (t - vp.t0) / vp.ms_per_px;
    let (t_lo, t_hi) = (vp.t0, vp.t0 + (w - GUTTER) * vp.ms_per_px);
    let (tops, _) = lane_tops(data);
    let y_of = |lane: usize, row: u32| AXIS + tops[lane] - vp.y + f64::from(row) * ROW;
    let now = data.end.0 as f64;
    // Lanes: bands and labels.
    ctx.set_font("12px system-ui, sans-serif");
    ctx.set_text_baseline("middle");
    for (i, l) in data.lanes.iter().enumerate() {
        let top = AXIS + tops[i] - vp.y;
        let height = f64::from(l.rows) * ROW + LANE_PAD;
        if top > h || top + height < AXIS {
            continue;
        }
        ctx.set_fill_style_str(if i % 2 == 0 { "#f6f7fb" } else { "#ffffff" });
        ctx.fill_rect(0.0, top, w, height);
        ctx.set_fill_style_str("#1d1f24");
        let who = if l.kind == LaneKind::Teammate { format!("@ {}", l.label) } else { l.label.clone() };
        let _ = ctx.fill_text(&who, 8.0, top + ROW / 2.0 + 2.0);
    }
    ctx.save();
    ctx.begin_path();
    ctx.rect(GUTTER, AXIS, w - GUTTER, h - AXIS);
    ctx.clip();
    // Parent → child links: from the parent's row at the child's start, down to the child.
    ctx.set_stroke_style_str("#9ca3af");
    ctx.set_line_width(1.0);
    for b in &data.bars {
        let Some(p) = b.parent else { continue };
        let x = x_of(b.start.0 as f64);
        if x < GUTTER - 2.0 || x > w + 2.0 {
            continue;
        }
        let parent = &data.bars[p];
        let (y0, y1) = (y_of(parent.lane, parent.row) + ROW / 2.0, y_of(b.lane, b.row) + ROW / 2.0);
        if y0.max(y1) < AXIS || y0.min(y1) > h {
            continue;
        }
        ctx.begin_path();
        ctx.move_to(x, y0);
        ctx.line_to(x, y1);
        ctx.stroke();
    }
    // Bars, with their status glyph, and a label where there is room.
    for (i, b) in data.bars.iter().enumerate() {
        let (s, e) = (b.start.0 as f64, b.end.map_or(now, |e| e.0 as f64));
        if e < t_lo || s > t_hi {
            continue;
        }
        let y = y_of(b.lane, b.row) + 3.0;
        if y > h || y + ROW < AXIS {
            continue;
        }
        let (x0, x1) = (x_of(s).max(GUTTER - 4.0), x_of(e).min(w + 4.0));
        let width = (x1 - x0).max(3.0);
        let (colour, glyph) = (b.category.colour(), b.category.glyph());
        ctx.set_fill_style_str(colour);
        ctx.fill_rect(x0, y, width, ROW - 6.0);
        if cursor.is_some_and(|c| e > c) {
            // What happened after the cursor, veiled.
            let from = x_of(cursor.unwrap_or(0.0)).max(x0);
            ctx.set_fill_style_str("rgba(255,255,255,0.6)");
            ctx.fill_rect(from, y, (x0 + width - from).max(0.0), ROW - 6.0);
        }
        if chosen == Some(i) {
            ctx.set_stroke_style_str("#1d1f24");
            ctx.set_line_width(2.0);
            ctx.stroke_rect(x0 - 1.0, y - 1.0, width + 2.0, ROW - 4.0);
        }
        ctx.set_fill_style_str("#ffffff");
        if width > 14.0 {
            let _ = ctx.fill_text(glyph, x0 + 3.0, y + (ROW - 6.0) / 2.0);
        }
        if width > 60.0 {
            let text = format!("{} · {}", b.label, b.status);
            let _ = ctx.fill_text_with_max_width(&text, x0 + 16.0, y + (ROW - 6.0) / 2.0, width - 20.0);
        } else if width <= 14.0 {
            // Too narrow for the glyph inside: beside it.
            ctx.set_fill_style_str(colour);
            let _ = ctx.fill_text(glyph, x0 + width + 2.0, y + (ROW - 6.0) / 2.0);
        }
    }
    // Marks.
    ctx.set_font("11px system-ui, sans-serif");
    ctx.set_text_align("center");
    for m in &data.marks {
        let t = m.at.0 as f64;
        if t < t_lo || t > t_hi {
            continue;
        }
        let y = y_of(m.lane, m.row) + ROW / 2.0;
        if !(AXIS..=h).contains(&y) {
            continue;
        }
        let x = x_of(t);
        // After the cursor: faded, like the bars.
        ctx.set_global_alpha(if cursor.is_some_and(|c| t > c) { 0.35 } else { 1.0 });
        ctx.set_fill_style_str("#ffffff");
        ctx.begin_path();
        let _ = ctx.arc(x, y, 6.0, 0.0, std::f64::consts::TAU);
        ctx.fill();
        ctx.set_fill_style_str("#1d1f24");
        let _ = ctx.fill_text(mark_glyph(m.kind), x, y + 0.5);
    }
    ctx.set_global_alpha(1.0);
    ctx.set_text_align("start");
    // The time cursor.
    if let Some(c) = cursor {
        let x = x_of(c);
        ctx.set_stroke_style_str("#2457d6");
        ctx.set_line_width(2.0);
        ctx.begin_path();
        ctx.move_to(x, AXIS);
        ctx.line_to(x, h);
        ctx.stroke();
    }
    ctx.restore();
    // The axis.
    ctx.set_fill_style_str("#ffffff");
    ctx.fill_rect(0.0, 0.0, w, AXIS);
    ctx.set_stroke_style_str("#e2e4ea");
    ctx.set_line_width(1.0);
    ctx.begin_path();
    ctx.move_to(0.0, AXIS - 0.5);
    ctx.line_to(w, AXIS - 0.5);
    ctx.stroke();
    let step = tick_step(vp.ms_per_px);
    let mut t = (t_lo / step).ceil() * step;
    ctx.set_fill_style_str("#6b7280");
    while t <= t_hi {
        let x = x_of(t);
        ctx.fill_rect(x, AXIS - 6.0, 1.0, 6.0);
        let _ = ctx.fill_text(&tick_label(t, step), x + 3.0, AXIS / 2.0);
        t += step;
    }
    if let Some(c) = cursor {
        let x = x_of(c);
        if x >= GUTTER {
            ctx.set_fill_style_str("#2457d6");
            ctx.fill_rect(x - 1.0, 0.0, 2.0, AXIS);
        }
    }
    ctx.set_fill_style_str("#6b7280");
    let _ = ctx.fill_text("time ▸ (click to scrub)", 8.0, AXIS / 2.0);
    if let Some(p) = &perf {
        if let Some(frames) = frames() {
            frames.push(&(p.now() - started).into());
        }
        // The first drawing of a non-empty picture (the bench reads it).
        let global = js_sys::global();
        let first = js_sys::Reflect::get(&global, &"__batonLanesFirstDraw".into()).is_ok_and(|v| v.is_undefined());
        if first && !data.bars.is_empty() {
            let _ = js_sys::Reflect::set(&global, &"__batonLanesFirstDraw".into(), &p.now().into());
        }
    }
}

/// `window.__batonFrames`, when a bench set it to an array.
fn frames() -> Option<js_sys::Array> {
    js_sys::Reflect::get(&js_sys::global(), &"__batonFrames".into()).ok().and_then(|v| v.dyn_into().ok())
}

/// The record the cursor is on: its time. (The records are in order: a binary search.)
fn record_time(records: &[LogRecord], seq: u64) -> Option<f64> {
    let i = records.binary_search_by_key(&seq, |r| r.seq).ok()?;
    Some(records[i].at.0 as f64)
}

/// The last record at or before `t`.
fn record_at(records: &[LogRecord], t: f64) -> Option<u64> {
    let i = records.partition_point(|r| (r.at.0 as f64) <= t);
    i.checked_sub(1).map(|i| records[i].seq)
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
        b.status,
        clock_text(b.start),
        dur(end.0.saturating_sub(b.start.0)),
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
            let y = vp.get_untracked().map_or(0.0, |v| v.y);
            vp.set(Some(Viewport { y, ..fit(&d, width()) }));
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
        vp.update(|v| {
            if let Some(v) = v {
                let t = v.t0 + (at_x - GUTTER).max(0.0) * v.ms_per_px;
                v.ms_per_px = (v.ms_per_px * factor).clamp(1.0, 1e9);
                v.t0 = t - (at_x - GUTTER).max(0.0) * v.ms_per_px;
            }
        })
    };
    let pan = move |dx_px: f64, dy_px: f64| {
        if dx_px != 0.0 {
            follow.set(false);
        }
        let (_, total) = lane_tops(&data.get_untracked());
        vp.update(|v| {
            if let Some(v) = v {
                v.t0 += dx_px * v.ms_per_px;
                v.y = (v.y + dy_px).clamp(0.0, (total - 40.0).max(0.0));
            }
        })
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
                Some((x, y, format!("{}{on} · {} · record #{}", m.kind.as_str(), clock_text(m.at), m.seq)))
            }
            Hit::Axis(t) => Some((
                x,
                y,
                format!("{} — click to view the workspace as of then", clock_text(baton_core::Timestamp(t as u64))),
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
            let b = &d.bars[next];
            let (tops, _) = lane_tops(&d);
            vp.update(|v| {
                if let Some(v) = v {
                    let x = (b.start.0 as f64 - v.t0) / v.ms_per_px;
                    if x < 0.0 || x > w - GUTTER - 40.0 {
                        v.t0 = b.start.0 as f64 - 40.0 * v.ms_per_px;
                    }
                    v.y = (tops[b.lane] + f64::from(b.row) * ROW - 80.0).max(0.0);
                }
            });
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
                pan(0.0, -ROW * 3.0);
                true
            }
            "ArrowDown" => {
                pan(0.0, ROW * 3.0);
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
            "0" | "Home" => {
                follow.set(true);
                vp.set(Some(fit(&d, w)));
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
                <span class="hint">"wheel zooms · drag pans · keys: ← → ↑ ↓ + − 0 · n/p select · Enter open · , . scrub"</span>
            </div>
            <div class="canvas-wrap">
                <canvas node_ref=canvas tabindex="0" data-testid="lanes-canvas" role="img"
                    data-span-ms=move || vp.get().map(|v| ((width() - GUTTER) * v.ms_per_px).round().to_string())
                    data-t0=move || vp.get().map(|v| v.t0.round().to_string())
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
                                let (_, total) = lane_tops(&data.get_untracked());
                                vp.set(Some(Viewport { t0: v0.t0 - dx * v0.ms_per_px, ms_per_px: v0.ms_per_px, y: (v0.y - dy).clamp(0.0, (total - 40.0).max(0.0)) }));
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
