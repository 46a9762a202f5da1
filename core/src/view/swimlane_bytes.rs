//! The swimlanes kept as bytes: what a console stores beside a large workspace so that its next
//! opening can draw the lanes before the engine has read the log (issue 26 item 4). The bytes
//! hold the picture's columns — lanes, bars, marks — and the record they reflect; rows are not
//! kept, since they depend on `now`: [`decode`] places the picture again ([`place`]) at the
//! console's `now` — its clock, never before the last record.
//!
//! Written by hand rather than with a serde format crate: five flat lists of fixed fields need a
//! varint and a length-prefixed string, and a format crate would bring its serde machinery
//! into the console's wasm for the same. Every index read is checked against what it points
//! into, so a damaged cache is refused ([`BadBytes`]) and never reaches the drawing.
use super::bytes::{BadBytes, In, Out};
use super::palette::Category;
use super::swimlane::{place, Bar, BarKind, Lane, LaneKind, MarkKind, PlacedMark, Swimlanes};
use crate::ground::time::Timestamp;

/// The form's first bytes: its name and version. A later form gets a new version, and a
/// cache in another one is refused (and written again by the console).
const MAGIC: &[u8; 4] = b"BSL1";

/// Swimlanes read back from their bytes.
#[derive(Clone, Debug, PartialEq)]
pub struct KeptLanes {
    /// The last record the picture reflects.
    pub seq: u64,
    /// That record's time.
    pub last_at: Timestamp,
    /// The picture, placed at the later of the clock [`decode`] was given and `last_at`.
    pub lanes: Swimlanes,
}

const MARK_KINDS: [MarkKind; 5] =
    [MarkKind::Nudge, MarkKind::Message, MarkKind::Report, MarkKind::FollowUp, MarkKind::Cancel];

/// `s` as bytes, reflecting the log up to record `seq` (at `last_at`).
pub fn encode(s: &Swimlanes, seq: u64, last_at: Timestamp) -> Vec<u8> {
    let text: usize = s.bars.iter().map(|b| b.id.len() + b.status.len() + b.label.len() + b.from.len() + 4).sum();
    let mut w = Out(Vec::with_capacity(16 + text + s.bars.len() * 16 + s.marks.len() * 12));
    w.0.extend_from_slice(MAGIC);
    w.num(seq);
    w.num(last_at.0);
    w.num(s.lanes.len() as u64);
    for l in &s.lanes {
        w.text(&l.key);
        w.text(&l.label);
        w.0.push(u8::from(l.kind == LaneKind::Teammate));
    }
    w.num(s.bars.len() as u64);
    for b in &s.bars {
        w.text(&b.id);
        w.0.push(u8::from(b.kind == BarKind::Relay) | u8::from(b.done) << 1);
        // 0 for the root, else one more than its place in the legend.
        w.0.push(Category::LEGEND.iter().position(|c| *c == b.category).map_or(0, |p| p + 1) as u8);
        w.num(b.lane as u64);
        w.num(b.start.0);
        w.opt(b.end.map(|e| e.0));
        w.text(&b.status);
        w.text(&b.label);
        w.text(&b.from);
        w.opt(b.parent.map(|p| p as u64));
    }
    w.num(s.marks.len() as u64);
    for m in &s.marks {
        w.0.push(MARK_KINDS.iter().position(|k| *k == m.kind).unwrap_or(0) as u8);
        w.num(m.at.0);
        w.num(m.seq);
        w.num(m.lane as u64);
        w.opt(m.bar.map(|b| b as u64));
    }
    w.0
}

/// Reads bytes [`encode`] wrote and places the picture at `clock`, or at the last record's time
/// if that is later (as a console's `now` is).
pub fn decode(bytes: &[u8], clock: Timestamp) -> Result<KeptLanes, BadBytes> {
    let mut r = In { bytes, at: 0 };
    if r.take(4)? != MAGIC {
        return Err(r.bad("not kept swimlanes of this version"));
    }
    let seq = r.num()?;
    let last_at = Timestamp(r.num()?);
    let n = r.len()?;
    let mut lanes = Vec::with_capacity(n);
    for _ in 0..n {
        let key = r.text()?;
        let label = r.text()?;
        let kind = match r.byte()? {
            0 => LaneKind::Agent,
            1 => LaneKind::Teammate,
            _ => return Err(r.bad("a lane's kind")),
        };
        lanes.push(Lane { key, label, kind, rows: 1 });
    }
    let n = r.len()?;
    let mut bars = Vec::with_capacity(n);
    for i in 0..n {
        let id = r.text()?;
        let flags = r.byte()?;
        if flags > 3 {
            return Err(r.bad("a bar's flags"));
        }
        let category = match usize::from(r.byte()?) {
            0 => Category::Root,
            n => *Category::LEGEND.get(n - 1).ok_or(r.bad("a bar's category"))?,
        };
        let lane = r.index(lanes.len(), "a bar's lane")?;
        let start = Timestamp(r.num()?);
        let end = r.opt()?.map(Timestamp);
        let status = r.text()?;
        let label = r.text()?;
        let from = r.text()?;
        // A parent comes before its child (bars are in start order, relays after handoffs).
        let parent = r.opt_index(i, "a bar's parent")?;
        let kind = if flags & 1 == 1 { BarKind::Relay } else { BarKind::Handoff };
        let done = flags & 2 == 2;
        bars.push(Bar { id, kind, lane, row: 0, start, end, status, category, done, label, from, parent });
    }
    let n = r.len()?;
    let mut marks = Vec::with_capacity(n);
    for _ in 0..n {
        let kind = *MARK_KINDS.get(usize::from(r.byte()?)).ok_or(r.bad("a mark's kind"))?;
        let at = Timestamp(r.num()?);
        let seq = r.num()?;
        let lane = r.index(lanes.len(), "a mark's lane")?;
        let bar = r.opt_index(bars.len(), "a mark's bar")?;
        marks.push(PlacedMark { kind, at, seq, lane, row: 0, bar });
    }
    if r.at != bytes.len() {
        return Err(r.bad("bytes after the marks"));
    }
    let now = clock.max(last_at);
    let mut lanes = Swimlanes { lanes, bars, marks, start: now, end: now, rows: Default::default() };
    place(&mut lanes, now);
    Ok(KeptLanes { seq, last_at, lanes })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::script::scenario;
    use crate::view::{swimlanes, Marks};

    // The swimlanes' own scenario: handoffs done, open, nested and cancelled, a follow-up, a
    // report, and a relay thread between teammates with a message on it.
    use crate::view::swimlane::tests::SCRIPT;

    fn laid_out(now_after: u64) -> (Swimlanes, u64, Timestamp, Timestamp) {
        let run = scenario::run(SCRIPT);
        let e = &run.engine;
        let mut marks = Marks::default();
        for r in e.storage().records() {
            marks.absorb(r, e.state());
        }
        let now = e.last_at().plus(now_after);
        (swimlanes(e.state(), &marks, now, None), e.log_seq(), e.last_at(), now)
    }

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn kept_swimlanes_read_back_as_laid_out_and_placed_again_at_a_later_now() {
        let (s, seq, last_at, now) = laid_out(60_000);
        assert!(s.lanes.iter().any(|l| l.kind == LaneKind::Teammate), "{:?}", s.lanes);
        assert!(s.bars.iter().any(|b| b.end.is_none()) && s.bars.iter().any(|b| b.parent.is_some()), "{:?}", s.bars);
        assert!(s.bars.iter().any(|b| b.kind == BarKind::Relay) && s.bars.iter().any(|b| b.done), "{:?}", s.bars);
        for kind in [MarkKind::Message, MarkKind::Report, MarkKind::FollowUp, MarkKind::Cancel] {
            assert!(s.marks.iter().any(|m| m.kind == kind), "no {kind:?} in {:?}", s.marks);
        }
        let bytes = encode(&s, seq, last_at);
        let back = decode(&bytes, now).unwrap();
        assert_eq!((back.seq, back.last_at), (seq, last_at));
        assert_eq!(back.lanes, s);
        // Text is kept as it was written, whatever its characters.
        let mut named = s.clone();
        named.bars[0].label = "Review «the» model ✓ 🧪".into();
        named.lanes[0].label = "Åsa".into();
        assert_eq!(decode(&encode(&named, seq, last_at), now).unwrap().lanes, named);
        // Later, nothing written since: the kept picture placed at the new now is the layout then.
        let (later, ..) = laid_out(3_600_000);
        assert_eq!(decode(&bytes, later.end).unwrap().lanes, later);
        // A clock behind the last record places it at the last record, as the console's now does.
        let (at_last, ..) = laid_out(0);
        assert_eq!(decode(&bytes, Timestamp(0)).unwrap().lanes, at_last);
    }

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn damaged_kept_swimlanes_are_refused_never_read_wrong() {
        let (s, seq, last_at, now) = laid_out(0);
        let bytes = encode(&s, seq, last_at);
        // Every shorter prefix is refused, and so is a byte more.
        for n in 0..bytes.len() {
            assert!(decode(&bytes[..n], now).is_err(), "a prefix of {n} bytes was read");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(decode(&longer, now).unwrap_err().what, "bytes after the marks");
        // Another version; an index past its list.
        let mut other = bytes.clone();
        other[3] = b'9';
        assert_eq!(decode(&other, now).unwrap_err().what, "not kept swimlanes of this version");
        let one_lane = Swimlanes { lanes: s.lanes[..1].to_vec(), bars: s.bars.clone(), ..Swimlanes::default() };
        let far = s.bars.iter().any(|b| b.lane > 0);
        assert!(far);
        assert_eq!(decode(&encode(&one_lane, seq, last_at), now).unwrap_err().what, "a bar's lane");
        // Any single byte changed either reads or is refused: it never panics.
        for i in 4..bytes.len() {
            for v in [0u8, 1, 0x7f, 0x80, 0xff] {
                let mut b = bytes.clone();
                b[i] = v;
                let _ = decode(&b, now);
            }
        }
    }
}
