//! Baton's console: a thin Leptos view over `baton-core` and the IndexedDB workspaces of
//! `baton-wasm`. No lifecycle rule is decided here: views read the engine's state, its read
//! models (`baton_core::view`) and tool answers previewed without committing; actions are tool
//! calls the engine validates.
mod app;
mod remote;
mod route;
mod session;
mod ui;
mod views;
mod workspace;

/// A `performance.mark` (the console bench reads them to split the time to first render).
pub(crate) fn mark(name: &str) {
    if let Some(p) = web_sys::window().and_then(|w| w.performance()) {
        let _ = p.mark(name);
    }
}

fn main() {
    mark("baton-start");
    leptos::mount::mount_to_body(app::App);
}
