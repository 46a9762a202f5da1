//! The same bench script with mimalloc as the global allocator, to tell the engine's own
//! costs from the system allocator's behaviour on a large, long-lived heap.
//! Run: `cargo bench -p baton-core --bench cycles_mimalloc`.
// The bench is a host, not the core: it may read the clock and the environment.
#![allow(clippy::disallowed_methods)]

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod common;

fn main() {
    common::run();
}
