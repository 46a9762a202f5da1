//! Scripts: the scenario runner (script in, output out) and playback on a moving clock.
pub mod playback;
pub mod scenario;
