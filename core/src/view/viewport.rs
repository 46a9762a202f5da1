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
}

/// Lane tops (before scrolling), and the total height.
pub fn lane_tops(data: &Swimlanes) -> (Vec<f64>, f64) {
    let mut tops = Vec::with_capacity(data.lanes.len());
    let mut y = 0.0;
    for l in &data.lanes {
        tops.push(y);
        y += f64::from(l.rows) * ROW + LANE_PAD;
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
pub fn fit(data: &Swimlanes, width: f64) -> Viewport {
    let span = (data.end.0.saturating_sub(data.start.0)).max(60_000) as f64;
    let plot = (width - GUTTER - 20.0).max(100.0);
    Viewport { t0: data.start.0 as f64 - span * 0.02, ms_per_px: span * 1.04 / plot, y: 0.0 }
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
