//! Bench script (system allocator): see `common/mod.rs`.
//! Run: `cargo bench -p baton-core --bench cycles` (figures in docs/PERFORMANCE.md).
// The bench is a host, not the core: it may read the clock and the environment.
#![allow(clippy::disallowed_methods)]

mod common;

fn main() {
    common::run();
}
