//! The swimlanes' viewport: where a drawing of [`Swimlanes`] looks (the time at the plot's left
//! edge, milliseconds per pixel, how far the lanes are scrolled), the geometry of lanes and rows,
//! what is under a point, fitting the whole span, tick steps, and the record at a time — pure,
//! so the console's canvas only paints and listens.
use crate::engine::log::LogRecord;
use crate::view::swimlane::Swimlanes;

/// Lane labels' width.
pub const GUTTER: f64 = 150.0;
/// The time axis' height.
pub const AXIS: f64 = 28.0;
/// One row of bars.
pub const ROW: f64 = 22.0;
/// One row of bars in the dense drawing (very tall lanes: thousands of rows).
pub const DENSE_ROW: f64 = 6.0;
/// Space between lanes.
pub const LANE_PAD: f64 = 10.0;

/// Where the view looks: the time at the left edge of the plot, milliseconds per pixel, and
/// how far the lanes are scrolled down.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Viewport {
    /// The time at the plot's left edge (ms since the epoch).
    pub t0: f64,
    /// Milliseconds per pixel.
    pub ms_per_px: f64,
    /// How far the lanes are scrolled down (px).
    pub y: f64,
    /// The height of a row of bars: [`ROW`], or [`DENSE_ROW`] when dense.
    pub row: f64,
}

impl Viewport {
    /// The time at canvas x (the gutter counts as the plot's left edge).
    pub fn time_at(&self, x: f64) -> f64 {
        self.t0 + (x - GUTTER).max(0.0) * self.ms_per_px
    }

    /// Zoomed by `factor` (more than 1: out) around canvas x `at_x`, which keeps its time;
    /// between 1 ms and 10⁹ ms per pixel.
    pub fn zoomed(self, factor: f64, at_x: f64) -> Viewport {
        let t = self.time_at(at_x);
        let ms_per_px = (self.ms_per_px * factor).clamp(1.0, 1e9);
        Viewport { t0: t - (at_x - GUTTER).max(0.0) * ms_per_px, ms_per_px, ..self }
    }

    /// Moved by `dx` px in time (right: later) and `dy` px down the lanes, never scrolled past
    /// the lanes' `total` height (less the last 40 px) nor above their top.
    pub fn panned(self, dx: f64, dy: f64, total: f64) -> Viewport {
        Viewport { t0: self.t0 + dx * self.ms_per_px, y: (self.y + dy).clamp(0.0, (total - 40.0).max(0.0)), ..self }
    }

    /// Dense (rows [`DENSE_ROW`] high) or not, the lane at the top of the view still there.
    pub fn dense(self, data: &Swimlanes, on: bool) -> Viewport {
        let row = if on { DENSE_ROW } else { ROW };
        let (old, _) = lane_tops(data, self.row);
        let (new, _) = lane_tops(data, row);
        let y = match old.iter().rposition(|top| *top <= self.y) {
            Some(lane) => {
                new[lane] + ((self.y - old[lane]) * row / self.row).min(f64::from(data.lanes[lane].rows) * row)
            }
            None => 0.0,
        };
        Viewport { y, row, ..self }
    }

    /// Whether rows are too low for text: bars are drawn without their glyph and label.
    pub fn is_dense(&self) -> bool {
        self.row < ROW
    }

    /// Brought to a bar of `data`: its start in view (40 px in, when it was outside a plot
    /// `width` wide) and its row 80 px below the top.
    pub fn showing(self, data: &Swimlanes, bar: usize, width: f64) -> Viewport {
        let b = &data.bars[bar];
        let (tops, _) = lane_tops(data, self.row);
        let start = b.start.0 as f64;
        let x = (start - self.t0) / self.ms_per_px;
        let t0 = if x < 0.0 || x > width - GUTTER - 40.0 { start - 40.0 * self.ms_per_px } else { self.t0 };
        Viewport { t0, y: (tops[b.lane] + f64::from(b.row) * self.row - 80.0).max(0.0), ..self }
    }
}

/// Lane tops (before scrolling) with rows `row` px high, and the total height.
pub fn lane_tops(data: &Swimlanes, row: f64) -> (Vec<f64>, f64) {
    let mut tops = Vec::with_capacity(data.lanes.len());
    let mut y = 0.0;
    for l in &data.lanes {
        tops.push(y);
        y += f64::from(l.rows) * row + LANE_PAD;
    }
    (tops, y)
}

/// What is under a point of the canvas.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Hit {
    /// A bar (its index in `Swimlanes::bars`).
    Bar(usize),
    /// A mark (its index in `Swimlanes::marks`).
    Mark(usize),
    /// The time axis, at this time.
    Axis(f64),
}

/// What is at canvas point (`x`, `y`) of a drawing of `data` through `vp`: a mark before a
/// bar (within 5 px of time), the time axis above the lanes, nothing in the gutter.
pub fn hit(data: &Swimlanes, vp: Viewport, x: f64, y: f64) -> Option<Hit> {
    if x < GUTTER {
        return None;
    }
    let t = vp.time_at(x);
    if y < AXIS {
        return Some(Hit::Axis(t));
    }
    let (tops, _) = lane_tops(data, vp.row);
    let ly = y - AXIS + vp.y;
    let lane = tops.iter().rposition(|top| *top <= ly)?;
    let row = ((ly - tops[lane]) / vp.row).floor();
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
    // The bars of that row reaching `t` (a short bar widened to be pointed at), the first
    // of them by index when the slack makes two.
    let now = data.end.0 as f64;
    let reach = |b: &crate::view::swimlane::Bar| b.end.map_or(now, |e| e.0 as f64).max(b.start.0 as f64 + 2.0 * slack);
    let bars = data.row_bars(lane, row);
    let from = bars.partition_point(|&i| reach(&data.bars[i as usize]) < t);
    bars[from..]
        .iter()
        .map(|&i| i as usize)
        .take_while(|&i| data.bars[i].start.0 as f64 - slack <= t)
        .min()
        .map(Hit::Bar)
}

/// The whole span in the width.
pub fn fit(data: &Swimlanes, width: f64) -> Viewport {
    let span = (data.end.0.saturating_sub(data.start.0)).max(60_000) as f64;
    let plot = (width - GUTTER - 20.0).max(100.0);
    Viewport { t0: data.start.0 as f64 - span * 0.02, ms_per_px: span * 1.04 / plot, y: 0.0, row: ROW }
}

/// A tick step (ms) at least ~90 px apart.
pub fn tick_step(ms_per_px: f64) -> f64 {
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

/// The record the cursor is on: its time. (The records are in order: a binary search.)
pub fn record_time(records: &[LogRecord], seq: u64) -> Option<f64> {
    let i = records.binary_search_by_key(&seq, |r| r.seq).ok()?;
    Some(records[i].at.0 as f64)
}

/// The last record at or before `t`.
pub fn record_at(records: &[LogRecord], t: f64) -> Option<u64> {
    let i = records.partition_point(|r| (r.at.0 as f64) <= t);
    i.checked_sub(1).map(|i| records[i].seq)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ground::time::Timestamp;
    use crate::view::swimlane::{Bar, BarKind, Lane, LaneKind, Link, PlacedMark};
    use crate::view::MarkKind;

    fn lane(key: &str, rows: u32) -> Lane {
        Lane { key: key.into(), label: key.into(), kind: LaneKind::Agent, rows }
    }

    fn bar(lane: usize, row: u32, start: u64, end: Option<u64>) -> Bar {
        Bar {
            id: format!("h{lane}{row}{start}"),
            kind: BarKind::Handoff,
            lane,
            row,
            start: Timestamp(start),
            end: end.map(Timestamp),
            label: "task".into(),
            from: "lead".into(),
            status: "running".into(),
            category: crate::view::Category::Live,
            done: end.is_some(),
            parent: None,
        }
    }

    /// Two lanes (2 rows, 1 row), two bars and a mark; time 0–100 s.
    fn data() -> Swimlanes {
        let mut s = Swimlanes {
            lanes: vec![lane("adam", 2), lane("eve", 1)],
            bars: vec![bar(0, 1, 10_000, Some(20_000)), bar(1, 0, 50_000, None)],
            marks: vec![PlacedMark {
                kind: MarkKind::Report,
                at: Timestamp(15_000),
                seq: 7,
                lane: 0,
                row: 1,
                bar: Some(0),
            }],
            start: Timestamp(0),
            end: Timestamp(100_000),
            rows: Default::default(),
        };
        s.index_rows(&crate::view::swimlane::start_order(&s.bars));
        s
    }

    const VP: Viewport = Viewport { t0: 0.0, ms_per_px: 100.0, y: 0.0, row: ROW };

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn lanes_stack_rows_and_padding() {
        assert_eq!(lane_tops(&data(), ROW), (vec![0.0, 2.0 * ROW + LANE_PAD], 3.0 * ROW + 2.0 * LANE_PAD));
        assert_eq!(lane_tops(&data(), DENSE_ROW).1, 3.0 * DENSE_ROW + 2.0 * LANE_PAD);
    }

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn a_point_finds_the_mark_before_the_bar_the_axis_above_and_nothing_in_the_gutter() {
        let d = data();
        let x_of = |t: f64| GUTTER + t / VP.ms_per_px;
        let row1 = AXIS + ROW + ROW / 2.0;
        assert_eq!(hit(&d, VP, x_of(15_000.0), row1), Some(Hit::Mark(0)));
        assert_eq!(hit(&d, VP, x_of(12_000.0), row1), Some(Hit::Bar(0)));
        assert_eq!(hit(&d, VP, x_of(30_000.0), row1), None, "after the bar ended");
        assert_eq!(hit(&d, VP, x_of(12_000.0), AXIS + ROW / 2.0), None, "row 0 of adam's lane is empty");
        assert_eq!(
            hit(&d, VP, x_of(90_000.0), AXIS + 2.0 * ROW + LANE_PAD + 1.0),
            Some(Hit::Bar(1)),
            "live: to the end"
        );
        assert_eq!(hit(&d, VP, x_of(40_000.0), 5.0), Some(Hit::Axis(40_000.0)));
        assert_eq!(hit(&d, VP, GUTTER - 1.0, row1), None);
        // scrolled down by one row, the same point is a row lower in the lanes
        let scrolled = Viewport { y: ROW, ..VP };
        assert_eq!(hit(&d, scrolled, x_of(12_000.0), AXIS + ROW / 2.0), Some(Hit::Bar(0)));
    }

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn fitting_shows_the_whole_span_with_a_margin() {
        let v = fit(&data(), GUTTER + 20.0 + 1000.0);
        assert!(v.t0 < 0.0 && v.time_at(GUTTER + 1000.0) > 100_000.0);
        assert_eq!(v.y, 0.0);
    }

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn zooming_keeps_the_time_under_the_pointer_and_stays_in_bounds() {
        let at = GUTTER + 300.0;
        let z = VP.zoomed(0.5, at);
        assert_eq!(z.ms_per_px, 50.0);
        assert_eq!(z.time_at(at), VP.time_at(at));
        assert_eq!(VP.zoomed(1e-9, at).ms_per_px, 1.0);
        assert_eq!(VP.zoomed(1e12, at).ms_per_px, 1e9);
    }

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn panning_moves_in_time_and_clamps_the_scroll() {
        let (_, total) = lane_tops(&data(), ROW);
        let p = VP.panned(10.0, 5.0, total);
        assert_eq!((p.t0, p.y), (1_000.0, 5.0));
        assert_eq!(VP.panned(0.0, -50.0, total).y, 0.0);
        assert_eq!(VP.panned(0.0, 1e6, total).y, (total - 40.0).max(0.0));
    }

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn showing_a_bar_brings_its_start_in_and_its_row_near_the_top() {
        let d = data();
        let far = Viewport { t0: 80_000.0, ..VP };
        let s = far.showing(&d, 0, GUTTER + 500.0);
        assert_eq!(s.t0, 10_000.0 - 40.0 * VP.ms_per_px);
        let near = VP.showing(&d, 0, GUTTER + 500.0);
        assert_eq!(near.t0, VP.t0, "already in view: time stays");
        assert_eq!(near.y, 0.0, "the row's top less 80 px, not above the lanes");
    }

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn ticks_are_at_least_90_px_apart() {
        for ms_per_px in [1.0, 10.0, 333.0, 60_000.0, 1e7] {
            let step = tick_step(ms_per_px);
            assert!(step / ms_per_px >= 90.0 || step == 31_536_000e3, "{ms_per_px}: {step}");
        }
        assert_eq!(tick_step(100.0), 15e3);
    }

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn dense_rows_keep_the_lanes_in_view_and_still_hit_their_bars() {
        let d = data();
        let scrolled = Viewport { y: 2.0 * ROW + LANE_PAD, ..VP };
        let dense = scrolled.dense(&d, true);
        assert!(dense.is_dense() && !scrolled.is_dense());
        assert_eq!(dense.y, 2.0 * DENSE_ROW + LANE_PAD, "eve's lane is still at the top");
        assert_eq!(dense.dense(&d, false).y, scrolled.y, "and back");
        // adam's second row, in the dense drawing
        let x = GUTTER + 12_000.0 / VP.ms_per_px;
        assert_eq!(hit(&d, VP.dense(&d, true), x, AXIS + DENSE_ROW + DENSE_ROW / 2.0), Some(Hit::Bar(0)));
    }

    /// Many bars, short and long, done and open, on three lanes, placed as the engine's
    /// layout places them: what the row index finds under a point, and the bars it gives for a
    /// span of a row, are what a walk over every bar finds.
    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn the_row_index_finds_what_a_walk_over_every_bar_finds() {
        let mut seed = 7u64;
        let mut next = move |n: u64| {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            (seed >> 33) % n
        };
        let mut start = 0;
        let bars: Vec<Bar> = (0..600)
            .map(|i| {
                start += next(3) * 1_000;
                let end = (next(5) > 0).then(|| start + next(4) * 5_000 + next(2) * 60_000);
                let parent = (i > 0 && next(4) == 0).then(|| next(i) as usize);
                Bar { id: format!("h{i}"), parent, ..bar(next(3) as usize, 0, start, end) }
            })
            .collect();
        let mut d = Swimlanes {
            lanes: vec![lane("adam", 1), lane("eve", 1), lane("zed", 1)],
            bars,
            end: Timestamp(start + 30_000),
            ..Swimlanes::default()
        };
        crate::view::place(&mut d, Timestamp(start + 30_000));
        assert!(d.lanes.iter().all(|l| l.rows > 3), "{:?}", d.lanes);
        let now = d.end.0 as f64;
        for vp in [VP, Viewport { ms_per_px: 2_000.0, ..VP }, Viewport { ms_per_px: 7.0, t0: 90_000.0, ..VP }] {
            let (tops, height) = lane_tops(&d, vp.row);
            let slack = 5.0 * vp.ms_per_px;
            for yi in 0..(height / 7.0) as usize {
                for x in (GUTTER as usize..1_200).step_by(13) {
                    let (x, y) = (x as f64, AXIS + yi as f64 * 7.0);
                    let t = vp.time_at(x);
                    let ly = y - AXIS + vp.y;
                    let walk = tops.iter().rposition(|top| *top <= ly).and_then(|lane| {
                        let row = ((ly - tops[lane]) / vp.row).floor();
                        (row < f64::from(d.lanes[lane].rows)).then_some(())?;
                        d.bars.iter().position(|b| {
                            b.lane == lane
                                && f64::from(b.row) == row
                                && b.start.0 as f64 - slack <= t
                                && t <= b.end.map_or(now, |e| e.0 as f64).max(b.start.0 as f64 + 2.0 * slack)
                        })
                    });
                    let found = match hit(&d, vp, x, y) {
                        Some(Hit::Bar(i)) => Some(i),
                        _ => None,
                    };
                    assert_eq!(found, walk, "{vp:?} at ({x}, {y})");
                }
            }
        }
        for (t0, t1) in [(0.0, 1e12), (50_000.0, 90_000.0), (120_000.0, 120_000.0), (1e12, 2e12)] {
            let walk: Vec<Link> = d
                .bars
                .iter()
                .filter(|b| (t0..=t1).contains(&(b.start.0 as f64)))
                .filter_map(|b| {
                    let p = &d.bars[b.parent?];
                    Some(Link { at: b.start, child: (b.lane as u32, b.row), parent: (p.lane as u32, p.row) })
                })
                .collect();
            assert_eq!(d.links_between(t0, t1), &walk[..], "{t0}..{t1}");
            assert!(t0 > 0.0 || walk.len() > 50, "{} links", walk.len());
        }
        for lane in 0..3 {
            for row in 0..d.lanes[lane].rows {
                for (t0, t1) in [(0.0, 1e12), (50_000.0, 90_000.0), (120_000.0, 120_500.0)] {
                    let walk: Vec<usize> = (0..d.bars.len())
                        .filter(|&i| {
                            let b = &d.bars[i];
                            b.lane == lane
                                && b.row == row
                                && b.end.map_or(now, |e| e.0 as f64) >= t0
                                && b.start.0 as f64 <= t1
                        })
                        .collect();
                    assert_eq!(d.bars_between(lane, row, t0, t1).collect::<Vec<_>>(), walk, "{lane} {row} {t0}");
                }
            }
        }
    }
}
