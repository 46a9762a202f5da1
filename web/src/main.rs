//! Baton's console: a thin Leptos view over `baton-core` and the IndexedDB workspaces of
//! `baton-wasm`. No lifecycle rule is decided here: views read the engine's state, its read
//! models (`baton_core::view`) and tool answers previewed without committing; actions are tool
//! calls the engine validates.
mod act;
mod app;
mod chains;
mod inbox;
mod missions;
mod route;
mod session;
mod thread;
mod timeline;
mod ui;

fn main() {
    leptos::mount::mount_to_body(app::App);
}
