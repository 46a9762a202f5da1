//! The delegation chains as a graph: `baton_core::view::graph_layout` places each node (layer =
//! depth, left to right; slot = row, parents midway between their children); this draws the
//! nodes in view as links (focusable, opened with a click or Enter) and their edges as SVG
//! paths, so a workspace of thousands of handoffs keeps only a screenful in the page.
use crate::route::{Route, View};
use crate::ui;
use baton_core::view::words;
use baton_core::view::{decimal, graph_layout, Category, ChainRow, GraphLayout, RowKind};
use leptos::prelude::*;
use std::sync::Arc;

/// A layer's width.
const COL_W: f64 = 240.0;
/// A node's box.
const NODE_W: f64 = 210.0;
const NODE_H: f64 = 60.0;
/// A slot's height.
const SLOT_H: f64 = 72.0;
/// Margin around the drawing.
const PAD: f64 = 16.0;
/// Slots drawn beyond the viewport.
const OVERSCAN: f64 = 4.0;
/// The minimap's box (CSS px).
const MAP_W: f64 = 120.0;
const MAP_H: f64 = 160.0;

fn x_of(layer: u16) -> f64 {
    PAD + f64::from(layer) * COL_W
}

fn y_of(slot: f64) -> f64 {
    PAD + slot * SLOT_H
}

/// The graph of `rows` (the chains view's rows, filtered and collapsed as there).
#[component]
pub fn Graph(rows: Memo<Arc<Vec<ChainRow>>>, selected: Signal<Option<String>>) -> impl IntoView {
    let ui = ui::ui();
    // Zoom: the drawing scaled (0.25×–1.5×); the viewport's slots follow it.
    let zoom = RwSignal::new(1.0f64);
    let layout = Memo::new_with_compare(
        move |_| Arc::new(rows.with(|r| graph_layout(r))),
        |old, new| old.map(Arc::as_ptr) != new.map(Arc::as_ptr),
    );
    let top = RwSignal::new(0.0f64);
    let height = RwSignal::new(800.0f64);
    let left = RwSignal::new(0.0f64);
    let width = RwSignal::new(1000.0f64);
    let scroller = NodeRef::<leptos::html::Div>::new();
    let map = NodeRef::<leptos::html::Canvas>::new();
    let frame = NodeRef::<leptos::html::Canvas>::new();
    let in_view = move || {
        let z = zoom.get();
        let (lo, hi) =
            ((top.get() / z - PAD) / SLOT_H - OVERSCAN, ((top.get() + height.get()) / z) / SLOT_H + OVERSCAN);
        (lo, hi)
    };
    let set_zoom = move |z: f64| zoom.set(z.clamp(0.25, 1.5));
    // The nodes in view with the rows they draw (node `i` places row `i`).
    let nodes = move || {
        let (lo, hi) = in_view();
        layout.with(|g| {
            rows.with(|rows| {
                g.visible(lo, hi).filter_map(|(i, n)| Some((i, n.clone(), rows.get(i)?.clone()))).collect::<Vec<_>>()
            })
        })
    };
    let edges = move || {
        let (lo, hi) = in_view();
        layout.with(|g: &Arc<GraphLayout>| {
            g.edges_between(lo, hi)
                .into_iter()
                .map(|i| {
                    let e = &g.edges[i];
                    let (a, b) = (&g.nodes[e.from], &g.nodes[e.to]);
                    let (x0, y0) = (x_of(a.layer) + NODE_W, y_of(a.slot) + NODE_H / 2.0);
                    let (x1, y1) = (x_of(b.layer), y_of(b.slot) + NODE_H / 2.0);
                    let mid = (x0 + x1) / 2.0;
                    let (x0, y0, x1, y1, mid) = (decimal(x0), decimal(y0), decimal(x1), decimal(y1), decimal(mid));
                    (format!("M{x0},{y0} C{mid},{y0} {mid},{y1} {x1},{y1}"), e.chained)
                })
                .collect::<Vec<_>>()
        })
    };
    let size = move || {
        layout.with(|g| (PAD * 2.0 + f64::from(g.layers.max(1)) * COL_W, PAD * 2.0 + g.slots.max(1.0) * SLOT_H))
    };
    // The minimap: every node as a dot of its category's colour, the part in view framed; a
    // click there brings that part into view. It reads the whole layout, not only what is in
    // the page, so a graph of thousands of nodes shows where the view is.
    // Each axis scaled on its own: a graph is often far taller than wide (thousands of slots,
    // a few layers), and the minimap is there to say where in it the view is.
    let fitted = move || {
        let (w, h) = size();
        (MAP_W / w, MAP_H / h)
    };
    Effect::new(move |_| {
        let Some(el) = scroller.get() else { return };
        width.set(f64::from(el.client_width()));
        height.set(f64::from(el.client_height()));
    });
    // The nodes are drawn once per layout (thousands of marks); scrolling redraws only the frame.
    Effect::new(move |_| {
        let Some(canvas) = map.get() else { return };
        let s = fitted();
        layout.with(|g| rows.with(|r| draw_map(&canvas, g, r, s)));
    });
    Effect::new(move |_| {
        let Some(canvas) = frame.get() else { return };
        let (z, s) = (zoom.get(), fitted());
        draw_frame(&canvas, s, (left.get() / z, top.get() / z, width.get() / z, height.get() / z));
    });
    let jump = move |ev: web_sys::MouseEvent| {
        let (Some(el), s, z) = (scroller.get_untracked(), fitted(), zoom.get_untracked()) else { return };
        let (x, y) = (f64::from(ev.offset_x()) / s.0 * z, f64::from(ev.offset_y()) / s.1 * z);
        el.set_scroll_left((x - width.get_untracked() / 2.0).max(0.0) as i32);
        el.set_scroll_top((y - height.get_untracked() / 2.0).max(0.0) as i32);
    };
    let href = move |row: &ChainRow| {
        let r = ui.route.get_untracked();
        let ws = r.ws.clone().unwrap_or_default();
        match row.kind {
            RowKind::Root => Route { at: r.at, ..Route::of(&ws, View::Thread).with_id(row.id.clone()) },
            RowKind::Handoff => {
                Route { at: r.at, mode: Some("graph".into()), ..Route::of(&ws, View::Chains).with_id(row.id.clone()) }
            }
        }
    };
    view! {
        <div class="graph-tools" role="toolbar" aria-label="Graph zoom">
            <button on:click=move |_| set_zoom(zoom.get_untracked() / 1.25) aria-label="Zoom out" data-testid="graph-zoom-out">"−"</button>
            <span data-testid="graph-zoom">{move || format!("{}%", (zoom.get() * 100.0).round() as i64)}</span>
            <button on:click=move |_| set_zoom(zoom.get_untracked() * 1.25) aria-label="Zoom in" data-testid="graph-zoom-in">"+"</button>
            <button on:click=move |_| set_zoom(1.0)>"100%"</button>
            <span class="hint">"ctrl + wheel zooms · Tab reaches the nodes · Enter opens"</span>
        </div>
        <div class="graph-wrap">
        <div class="minimap" data-testid="graph-minimap" style=format!("width:{}px;height:{}px", MAP_W as u32, MAP_H as u32) on:click=jump
            aria-label="Minimap of the graph: click to bring that part into view" role="img">
            <canvas node_ref=map width=MAP_W as u32 height=MAP_H as u32></canvas>
            <canvas node_ref=frame width=MAP_W as u32 height=MAP_H as u32></canvas>
        </div>
        <div id="graph-scroll" class="scroll graph" data-testid="chain-graph" node_ref=scroller
            on:scroll=move |ev| {
                let el: web_sys::HtmlElement = event_target(&ev);
                top.set(f64::from(el.scroll_top()));
                height.set(f64::from(el.client_height()));
                left.set(f64::from(el.scroll_left()));
                width.set(f64::from(el.client_width()));
            }
            on:wheel=move |ev: web_sys::WheelEvent| {
                if ev.ctrl_key() {
                    ev.prevent_default();
                    set_zoom(zoom.get_untracked() * (-ev.delta_y() * 0.0015).exp());
                }
            }>
            <div class="spacer" style=move || { let (w, h) = size(); let z = zoom.get(); format!("width:{}px;height:{}px", decimal(w * z), decimal(h * z)) }>
              <div class="zoomed" style=move || format!("transform:scale({});width:{}px;height:{}px", decimal(zoom.get()), decimal(size().0), decimal(size().1))>
                <svg class="edges" aria-hidden="true" width=move || decimal(size().0) height=move || decimal(size().1)>
                    {move || edges().into_iter().map(|(d, chained)| view! {
                        <path d=d class=if chained { "edge chained" } else { "edge" }/>
                    }).collect_view()}
                </svg>
                <For each=nodes key=|(i, n, row)| format!("{i}|{row:?}|{}", decimal(n.slot)) let((_, n, row))>
                    {
                        let target = href(&row);
                        let id = row.id.clone();
                        let is_sel = move || selected.get().as_deref() == Some(id.as_str());
                        let status = row.status.map_or("root", |s| words::status(s.as_str()).0);
                        let cat = Category::of(row.status);
                        let class = format!("gnode cat-{}{}", cat.as_str(), if n.stalled { " stalled" } else { "" });
                        let style = format!(
                            "left:{}px;top:{}px;width:{}px;height:{}px;--cat:{}",
                            decimal(x_of(n.layer)),
                            decimal(y_of(n.slot)),
                            NODE_W as u32,
                            NODE_H as u32,
                            cat.colour()
                        );
                        let facts = match row.kind {
                            RowKind::Root => format!("{} · root", row.agent),
                            RowKind::Handoff => format!("{} · {status}", row.agent),
                        };
                        let title = format!("{} — {} → {} · {status} · {}", row.label, row.from_agent, row.agent, words::compact(row.age_ms));
                        view! {
                            <a class=class class:selected=is_sel style=style href=target.to_hash() title=title
                                data-testid="graph-node" data-id=row.id.to_string()
                                on:click=move |ev| { ev.prevent_default(); ui.go(&target); }>
                                <span class="line1"><span class="glyph">{cat.glyph()}</span>{row.label.clone()}</span>
                                <span class="line2">{facts}</span>
                                <span class="line2 badges">
                                    {row.blueprint.clone().map(|b| view! { <span class="badge bp">{format!("▦ {b}")}</span> })}
                                    {row.coding_agent.map(|c| view! { <span class="badge code">{format!("⌨ {c}")}</span> })}
                                    {n.stalled.then(|| view! { <span class="badge stall">"stalled"</span> })}
                                    {(row.nudges > 0).then(|| view! { <span class="badge nudge">{format!("▲{}", row.nudges)}</span> })}
                                    {(row.collapsed).then(|| view! { <span class="badge">{format!("+{}", row.children)}</span> })}
                                </span>
                            </a>
                        }
                    }
                </For>
              </div>
            </div>
            {move || rows.with(|r| r.is_empty()).then(|| view! { <p class="empty">"No handoffs yet — run the demo mission, attach a server, or start one by hand under “Act as agent”."</p> })}
        </div>
        </div>
    }
}

/// A minimap canvas's 2-D context, cleared.
fn cleared(canvas: &web_sys::HtmlCanvasElement) -> Option<web_sys::CanvasRenderingContext2d> {
    use wasm_bindgen::JsCast;
    let ctx = canvas.get_context("2d").ok().flatten()?.dyn_into::<web_sys::CanvasRenderingContext2d>().ok()?;
    ctx.clear_rect(0.0, 0.0, MAP_W, MAP_H);
    Some(ctx)
}

/// Draws the nodes of `g` (placing `rows`) on the minimap at scale `(sx, sy)` (minimap px per
/// drawing px): each layer's runs of pixel rows in one colour ([`GraphLayout::minimap`]), one
/// colour at a time — a few hundred rectangles, where a rectangle a node took a million calls
/// into the page at 1,000,000 handoffs.
fn draw_map(canvas: &web_sys::HtmlCanvasElement, g: &GraphLayout, rows: &[ChainRow], (sx, sy): (f64, f64)) {
    let Some(ctx) = cleared(canvas) else { return };
    let runs = g.minimap(rows, MAP_H as u32, |slot| y_of(slot) * sy, NODE_H * sy);
    for cat in std::iter::once(Category::Root).chain(Category::LEGEND) {
        ctx.set_fill_style_str(cat.colour());
        for r in runs.iter().filter(|r| r.category == cat) {
            ctx.fill_rect(x_of(r.layer) * sx, f64::from(r.from), (NODE_W * sx).max(1.0), f64::from(r.to - r.from));
        }
    }
}

/// Frames the part of the drawing in view (`x, y, w, h` in drawing px) on the minimap.
fn draw_frame(canvas: &web_sys::HtmlCanvasElement, (sx, sy): (f64, f64), (x, y, w, h): (f64, f64, f64, f64)) {
    let Some(ctx) = cleared(canvas) else { return };
    ctx.set_stroke_style_str("#1d1f24");
    ctx.set_line_width(1.0);
    ctx.stroke_rect(x * sx + 0.5, y * sy + 0.5, (w * sx).max(2.0), (h * sy).max(2.0));
}
