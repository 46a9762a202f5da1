//! What the keys, the wheel and the mouse do to the swimlanes: pan, zoom, dense rows, select,
//! open and scrub. The component wires these to the canvas's events; the viewport math they
//! call is `baton_core::view` (tested natively), and the drawing is `paint.rs`.
use crate::route::{Route, View};
use crate::ui::Ui;
use baton_core::view::{fit, hit, lane_tops, record_at, BarKind, Hit, Swimlanes, Viewport, GUTTER, ROW};
use leptos::prelude::*;
use std::sync::Arc;

/// Movement (px, either axis) past which a press is a drag, not a click.
const DRAG_PX: f64 = 3.0;

/// The swimlanes' interactive state: signals, so the controls are `Copy` and every event
/// handler keeps its own copy.
#[derive(Clone, Copy)]
pub(super) struct Controls {
    /// The console's signals.
    pub ui: Ui,
    /// The layout.
    pub data: Memo<Arc<Swimlanes>>,
    /// What is in view (`None` until the first layout).
    pub vp: RwSignal<Option<Viewport>>,
    /// The pointer over the canvas.
    pub mouse: RwSignal<Option<(f64, f64)>>,
    /// The selected bar.
    pub chosen: RwSignal<Option<usize>>,
    /// A press in progress: where, the view then, and whether it has moved into a drag.
    pub drag: RwSignal<Option<(f64, f64, Viewport, bool)>>,
    /// The view fits the whole span and follows it as the workspace moves on.
    pub follow: RwSignal<bool>,
    /// The canvas.
    pub canvas: NodeRef<leptos::html::Canvas>,
}

impl Controls {
    /// The canvas's width in CSS pixels.
    pub fn width(&self) -> f64 {
        self.canvas.get_untracked().map_or(1000.0, |c| f64::from(c.client_width()))
    }

    /// Zooms by `factor` about `at_x`; the view stops following.
    pub fn zoom(&self, factor: f64, at_x: f64) {
        self.follow.set(false);
        self.vp.update(|v| *v = v.map(|v| v.zoomed(factor, at_x)))
    }

    /// Pans by pixels; a sideways pan stops the view following.
    pub fn pan(&self, dx_px: f64, dy_px: f64) {
        if dx_px != 0.0 {
            self.follow.set(false);
        }
        let data = self.data;
        self.vp.update(|v| {
            *v = v.map(|v| {
                let (_, total) = lane_tops(&data.get_untracked(), v.row);
                v.panned(dx_px, dy_px, total)
            })
        })
    }

    /// Dense rows are on (tracked).
    pub fn dense(&self) -> bool {
        self.vp.with(|v| v.is_some_and(|v| v.is_dense()))
    }

    /// Dense rows on or off: the lane at the top stays there.
    pub fn toggle_dense(&self) {
        let on = !self.dense();
        let data = self.data;
        self.vp.update(|v| *v = v.map(|v| v.dense(&data.get_untracked(), on)));
    }

    /// Shows the workspace as of record `seq` (`None`: live).
    pub fn scrub(&self, seq: Option<u64>) {
        let r = self.ui.route.get_untracked();
        self.ui.go(&Route { at: seq, ..r });
    }

    /// Selects the bar `k` places on from the selected one (wrapping), and brings it into view.
    fn step(&self, d: &Swimlanes, k: isize) {
        let n = d.bars.len();
        if n == 0 {
            return;
        }
        let next = match self.chosen.get_untracked() {
            None if k > 0 => 0,
            None => n - 1,
            Some(i) => (i as isize + k).rem_euclid(n as isize) as usize,
        };
        self.chosen.set(Some(next));
        let w = self.width();
        self.vp.update(|v| *v = v.map(|v| v.showing(d, next, w)));
    }

    /// A key on the canvas; the keys it uses go no further.
    pub fn key(&self, ev: web_sys::KeyboardEvent) {
        let d = self.data.get_untracked();
        let w = self.width();
        let row = self.vp.get_untracked().map_or(ROW, |v| v.row);
        let middle = GUTTER + (w - GUTTER) / 2.0;
        match ev.key().as_str() {
            "ArrowLeft" => self.pan(-w * 0.1, 0.0),
            "ArrowRight" => self.pan(w * 0.1, 0.0),
            "ArrowUp" => self.pan(0.0, -row * 3.0),
            "ArrowDown" => self.pan(0.0, row * 3.0),
            "+" | "=" => self.zoom(0.8, middle),
            "-" | "_" => self.zoom(1.25, middle),
            "d" => self.toggle_dense(),
            "0" | "Home" => {
                self.follow.set(true);
                self.vp.set(Some(Viewport { row, ..fit(&d, w) }));
            }
            "n" => self.step(&d, 1),
            "p" => self.step(&d, -1),
            "Enter" => {
                if let Some(i) = self.chosen.get_untracked() {
                    open(self.ui, &d, i);
                }
            }
            "Escape" => self.chosen.set(None),
            k @ ("," | ".") => {
                let ui = self.ui;
                let (at, last) = ui
                    .with_session(|s| (ui.at.get_untracked(), s.records.borrow().last().map_or(0, |r| r.seq)))
                    .unwrap_or((None, 0));
                let cur = at.unwrap_or(last);
                let next = if k == "," { cur.saturating_sub(1).max(1) } else { cur + 1 };
                self.scrub((next < last).then_some(next));
            }
            _ => return,
        }
        ev.prevent_default();
        ev.stop_propagation();
    }

    /// The wheel: sideways (or with shift) pans, otherwise zooms about the pointer.
    pub fn wheel(&self, ev: web_sys::WheelEvent) {
        ev.prevent_default();
        let (x, _) = point(&ev);
        if ev.shift_key() || ev.delta_x().abs() > ev.delta_y().abs() {
            self.pan(ev.delta_x() + if ev.shift_key() { ev.delta_y() } else { 0.0 }, 0.0);
        } else {
            self.zoom((ev.delta_y() * 0.0015).exp(), x);
        }
    }

    /// A press: a drag may start here.
    pub fn mouse_down(&self, ev: web_sys::MouseEvent) {
        let (x, y) = point(&ev);
        if let Some(v) = self.vp.get_untracked() {
            self.drag.set(Some((x, y, v, false)));
        }
    }

    /// The pointer moves: the hover follows it, and a press that moved far enough pans.
    pub fn mouse_move(&self, ev: web_sys::MouseEvent) {
        let (x, y) = point(&ev);
        self.mouse.set(Some((x, y)));
        if let Some((x0, y0, v0, _)) = self.drag.get_untracked() {
            let (dx, dy) = (x - x0, y - y0);
            if dx.abs() + dy.abs() > DRAG_PX {
                self.drag.set(Some((x0, y0, v0, true)));
                if dx.abs() > DRAG_PX {
                    self.follow.set(false);
                }
                let (_, total) = lane_tops(&self.data.get_untracked(), v0.row);
                self.vp.set(Some(v0.panned(-dx, -dy, total)));
            }
        }
    }

    /// The pointer left the canvas: no hover, no drag.
    pub fn mouse_leave(&self) {
        self.mouse.set(None);
        self.drag.set(None);
    }

    /// A release: after a drag nothing more; a click opens a bar, scrubs to a mark, or scrubs
    /// to a time on the axis.
    pub fn mouse_up(&self, ev: web_sys::MouseEvent) {
        let dragged = self.drag.get_untracked().is_some_and(|d| d.3);
        self.drag.set(None);
        if dragged {
            return;
        }
        let (x, y) = point(&ev);
        let d = self.data.get_untracked();
        let Some(v) = self.vp.get_untracked() else { return };
        let ui = self.ui;
        match hit(&d, v, x, y) {
            Some(Hit::Bar(i)) => open(ui, &d, i),
            Some(Hit::Mark(i)) => self.scrub(Some(d.marks[i].seq)),
            Some(Hit::Axis(t)) => {
                let seq = ui.with_session(|s| record_at(&s.records.borrow(), t)).flatten();
                let last = ui.with_session(|s| s.records.borrow().last().map(|r| r.seq)).flatten();
                self.scrub(seq.filter(|s| Some(*s) != last));
            }
            None => {}
        }
    }
}

/// Where a mouse event is, in the canvas's CSS pixels.
pub(super) fn point(ev: &web_sys::MouseEvent) -> (f64, f64) {
    let el: web_sys::Element = event_target(ev);
    let r = el.get_bounding_client_rect();
    (f64::from(ev.client_x()) - r.left(), f64::from(ev.client_y()) - r.top())
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
