//! Painting the swimlanes on a canvas: lanes, bars, marks, links, the time axis and the
//! cursor, culled to what is in view; the time each frame took goes to `window.__batonFrames`
//! when a bench asks for it.
use baton_core::view::words;
use baton_core::view::{lane_tops, tick_step, LaneKind, MarkKind, Swimlanes, Viewport, AXIS, GUTTER, LANE_PAD, ROW};
use wasm_bindgen::JsCast;

pub(super) fn mark_glyph(k: MarkKind) -> &'static str {
    match k {
        MarkKind::Nudge => "▲",
        MarkKind::Message => "●",
        MarkKind::Report => "◆",
        MarkKind::FollowUp => "■",
        MarkKind::Cancel => "✕",
    }
}

fn tick_label(t: f64, step: f64) -> String {
    let full = words::clock(baton_core::Timestamp(t as u64));
    if step < 60e3 {
        full.get(11..19).unwrap_or(&full).to_string()
    } else if step < 86_400e3 {
        full.get(11..16).unwrap_or(&full).to_string()
    } else {
        full.get(..10).unwrap_or(&full).to_string()
    }
}

/// Draws the lanes; the time it took goes to `window.__batonFrames` when a bench set it.
pub(super) fn draw(
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
    let row_h = vp.row;
    // A bar fills its row less a margin; dense rows keep one pixel above and below.
    let (pad, bar_h) = if vp.is_dense() { (1.0, row_h - 2.0) } else { (3.0, row_h - 6.0) };
    let (tops, _) = lane_tops(data, row_h);
    let y_of = |lane: usize, row: u32| AXIS + tops[lane] - vp.y + f64::from(row) * row_h;
    let now = data.end.0 as f64;
    // Lanes: bands and labels.
    ctx.set_font("12px system-ui, sans-serif");
    ctx.set_text_baseline("middle");
    for (i, l) in data.lanes.iter().enumerate() {
        let top = AXIS + tops[i] - vp.y;
        let height = f64::from(l.rows) * row_h + LANE_PAD;
        if top > h || top + height < AXIS {
            continue;
        }
        ctx.set_fill_style_str(if i % 2 == 0 { "#f6f7fb" } else { "#ffffff" });
        ctx.fill_rect(0.0, top, w, height);
        ctx.set_fill_style_str("#1d1f24");
        let who = if l.kind == LaneKind::Teammate { format!("@ {}", l.label) } else { l.label.clone() };
        let _ = ctx.fill_text(&who, 8.0, top + (row_h.max(ROW) / 2.0 + 2.0).min(height / 2.0 + 2.0));
    }
    ctx.save();
    ctx.begin_path();
    ctx.rect(GUTTER, AXIS, w - GUTTER, h - AXIS);
    ctx.clip();
    // Parent → child links: from the parent's row at the child's start, down to the child
    // (those whose child starts in the span in view, from the row index).
    ctx.set_stroke_style_str("#9ca3af");
    ctx.set_line_width(1.0);
    let slack = 2.0 * vp.ms_per_px;
    for link in data.links_between(t_lo - slack, t_hi + slack) {
        let x = x_of(link.at.0 as f64);
        if x < GUTTER - 2.0 || x > w + 2.0 {
            continue;
        }
        let (y0, y1) = (
            y_of(link.parent.0 as usize, link.parent.1) + row_h / 2.0,
            y_of(link.child.0 as usize, link.child.1) + row_h / 2.0,
        );
        if y0.max(y1) < AXIS || y0.min(y1) > h {
            continue;
        }
        ctx.begin_path();
        ctx.move_to(x, y0);
        ctx.line_to(x, y1);
        ctx.stroke();
    }
    // Bars, with their status glyph, and a label where there is room: the rows in view of
    // each lane in view, and in each row the bars that reach the span in view (the row index,
    // so a frame does not walk every bar of a large workspace).
    for (lane, l) in data.lanes.iter().enumerate() {
        let top = AXIS + tops[lane] - vp.y + pad;
        let lo = ((AXIS - row_h - top) / row_h).floor().max(0.0);
        let hi = ((h - top) / row_h).ceil().min(f64::from(l.rows) - 1.0);
        if hi < lo {
            continue;
        }
        for row in lo as u32..=hi as u32 {
            for i in data.bars_between(lane, row, t_lo, t_hi) {
                let b = &data.bars[i];
                let (s, e) = (b.start.0 as f64, b.end.map_or(now, |e| e.0 as f64));
                let y = y_of(b.lane, b.row) + pad;
                if y > h || y + row_h < AXIS {
                    continue;
                }
                let (x0, x1) = (x_of(s).max(GUTTER - 4.0), x_of(e).min(w + 4.0));
                let width = (x1 - x0).max(3.0);
                let (colour, glyph) = (b.category.colour(), b.category.glyph());
                ctx.set_fill_style_str(colour);
                ctx.fill_rect(x0, y, width, bar_h);
                if cursor.is_some_and(|c| e > c) {
                    // What happened after the cursor, veiled.
                    let from = x_of(cursor.unwrap_or(0.0)).max(x0);
                    ctx.set_fill_style_str("rgba(255,255,255,0.6)");
                    ctx.fill_rect(from, y, (x0 + width - from).max(0.0), bar_h);
                }
                if chosen == Some(i) {
                    ctx.set_stroke_style_str("#1d1f24");
                    ctx.set_line_width(2.0);
                    ctx.stroke_rect(x0 - 1.0, y - 1.0, width + 2.0, bar_h + 2.0);
                }
                if vp.is_dense() {
                    continue; // no room for text: the hover and the selection line say what it is
                }
                ctx.set_fill_style_str("#ffffff");
                if width > 14.0 {
                    let _ = ctx.fill_text(glyph, x0 + 3.0, y + bar_h / 2.0);
                }
                if width > 60.0 {
                    let text = format!("{} · {}", b.label, b.status);
                    let _ = ctx.fill_text_with_max_width(&text, x0 + 16.0, y + bar_h / 2.0, width - 20.0);
                } else if width <= 14.0 {
                    // Too narrow for the glyph inside: beside it.
                    ctx.set_fill_style_str(colour);
                    let _ = ctx.fill_text(glyph, x0 + width + 2.0, y + bar_h / 2.0);
                }
            }
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
        let y = y_of(m.lane, m.row) + row_h / 2.0;
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
