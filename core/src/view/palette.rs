//! One look for every status a view draws — its category, glyph and colour — so the tree, the
//! graph, the swimlanes and the journeys cannot disagree. Colours are Okabe–Ito (readable with
//! colour-blindness) and each category has a glyph of its own: status never rests on colour
//! alone.
use crate::handoff::Status;
use crate::relay::RelayStatus;

/// What a status amounts to, for a person looking at a view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Category {
    /// A thread at the top of a chain (no handoff of its own).
    Root,
    /// Started, running, or with a first response: work goes on.
    Live,
    /// The watch window closed while the child runs — not a failure (S4).
    WatchExpired,
    /// Completed (told to the parent or not).
    Done,
    /// The child failed, went quiet for good, or its callback could not be delivered.
    Failed,
    /// Stopped by the parent (C1), or a relay thread its sender cancelled.
    Cancelled,
    /// The child thread could not be made (G17, G18).
    Rejected,
    /// A relay thread still open: mail in flight.
    MailOpen,
}

impl Category {
    /// Every category a legend shows, in its order (the root is no status). The kept
    /// swimlanes' bytes number a bar's category by this order (`swimlane_bytes`): a change
    /// to it is a new version of that form.
    pub const LEGEND: [Category; 7] = [
        Category::Live,
        Category::WatchExpired,
        Category::Done,
        Category::Failed,
        Category::Cancelled,
        Category::Rejected,
        Category::MailOpen,
    ];

    /// A handoff's category (`None`: a chain's root thread).
    pub fn of(status: Option<Status>) -> Category {
        match status {
            None => Category::Root,
            Some(Status::Started | Status::Running | Status::FirstResponse) => Category::Live,
            Some(Status::WatchExpired | Status::Timeout) => Category::WatchExpired,
            Some(Status::Completed | Status::ExpiredUnnotified) => Category::Done,
            Some(Status::Error | Status::Abandoned | Status::Undeliverable) => Category::Failed,
            Some(Status::Cancelled) => Category::Cancelled,
            Some(Status::MaterializeFailed) => Category::Rejected,
        }
    }

    /// A relay thread's category.
    pub fn of_relay(status: RelayStatus) -> Category {
        match status {
            RelayStatus::Pending | RelayStatus::Accepted => Category::MailOpen,
            RelayStatus::Completed => Category::Done,
            RelayStatus::Cancelled => Category::Cancelled,
        }
    }

    /// Its name in class names and data (`watch_expired`, `mail_open`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Category::Root => "root",
            Category::Live => "live",
            Category::WatchExpired => "watch_expired",
            Category::Done => "done",
            Category::Failed => "failed",
            Category::Cancelled => "cancelled",
            Category::Rejected => "rejected",
            Category::MailOpen => "mail_open",
        }
    }

    /// Its name for a person (a legend's words).
    pub fn label(self) -> &'static str {
        match self {
            Category::Root => "thread",
            Category::Live => "running",
            Category::WatchExpired => "watch expired",
            Category::Done => "completed",
            Category::Failed => "failed",
            Category::Cancelled => "cancelled",
            Category::Rejected => "rejected",
            Category::MailOpen => "relay open",
        }
    }

    /// Its glyph (every category its own).
    pub fn glyph(self) -> &'static str {
        match self {
            Category::Root => "◉",
            Category::Live => "▸",
            Category::WatchExpired => "~",
            Category::Done => "✓",
            Category::Failed => "✕",
            Category::Cancelled => "⊘",
            Category::Rejected => "⊗",
            Category::MailOpen => "✉",
        }
    }

    /// Its colour (CSS).
    pub fn colour(self) -> &'static str {
        match self {
            Category::Root => "#1d1f24",
            Category::Live => "#0072B2",
            Category::WatchExpired => "#56B4E9",
            Category::Done => "#009E73",
            Category::Failed => "#D55E00",
            Category::Cancelled => "#9CA3AF",
            Category::Rejected => "#CC79A7",
            Category::MailOpen => "#E69F00",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_status_has_one_category_and_the_legend_tells_them_apart() {
        for s in Status::ALL {
            assert_ne!(Category::of(Some(s)), Category::Root, "{s:?}");
        }
        // A cancelled or rejected handoff is not a failure (the journeys once filed them so).
        assert_eq!(Category::of(Some(Status::Cancelled)), Category::Cancelled);
        assert_eq!(Category::of(Some(Status::MaterializeFailed)), Category::Rejected);
        let glyphs: std::collections::BTreeSet<_> = Category::LEGEND.iter().map(|c| c.glyph()).collect();
        let colours: std::collections::BTreeSet<_> = Category::LEGEND.iter().map(|c| c.colour()).collect();
        assert_eq!((glyphs.len(), colours.len()), (7, 7), "each category its own glyph and colour");
    }
}
