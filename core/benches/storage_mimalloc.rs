//! The storage bench script with mimalloc as the global allocator: the system allocator
//! (glibc) spends much of a cycle on a large, fragmented heap consolidating free chunks, which
//! a native server avoids by linking mimalloc.
//! Run: `cargo bench -p baton-core --bench storage_mimalloc`.
#![allow(clippy::disallowed_methods)]

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[path = "storage.rs"]
mod storage;

fn main() {
    storage::main();
}
