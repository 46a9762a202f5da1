//! The console's views, one module each: the delegation tree and its graph (`chains`, `graph`),
//! journeys (`missions`), inboxes (`inbox`), a thread (`thread`), the timeline with its
//! swimlanes (`timeline`, `lanes`) and the act forms (`act`).
pub(crate) mod act;
pub(crate) mod chains;
pub(crate) mod graph;
pub(crate) mod inbox;
pub(crate) mod lanes;
pub(crate) mod missions;
pub(crate) mod thread;
pub(crate) mod timeline;
