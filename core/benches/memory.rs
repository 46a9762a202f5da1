//! Bench script: where a retained handoff's memory goes (issue 26 item 5). Grows a workspace
//! with the storage bench's delegation cycle (`BATON_BENCH_MEMORY` handoffs, default 100,000;
//! no store, so the state is all there is) under a global allocator that counts the bytes the
//! program holds: requested sizes, without the allocator's own overhead, as `heapInUse()`
//! counts them in the npm package. Then it measures each of the state's parts by copying it:
//! a copy allocates what the part holds. Records held as values in the recent window share
//! their values with the copy and are not counted (at most 1,024 of each kind), and a copy of
//! a list allocates its length, not its capacity; "the rest" is what no copy covers: the
//! indexes, the recent window's own bookkeeping, the engine, and room lists hold unused.
//! Prints a table of bytes per retained handoff.
//! Run: `cargo bench -p baton-core --bench memory`.
// The bench is a host, not the core: it may read the environment.
#![allow(clippy::disallowed_methods)]

use baton_core::NoStorage;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

#[allow(dead_code)]
mod common;
#[path = "delegation/mod.rs"]
mod delegation;

/// Bytes handed out and not yet freed.
static LIVE: AtomicUsize = AtomicUsize::new(0);

struct Counting;

// SAFETY: every method forwards to the system allocator with the layout it was given.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            LIVE.fetch_add(layout.size(), Relaxed);
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            LIVE.fetch_add(layout.size(), Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            LIVE.fetch_sub(layout.size(), Relaxed);
            LIVE.fetch_add(new_size, Relaxed);
        }
        p
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// The bytes a copy of `part` allocates.
fn held<T: Clone>(part: &T) -> usize {
    let before = LIVE.load(Relaxed);
    let copy = part.clone();
    let bytes = LIVE.load(Relaxed) - before;
    drop(copy);
    bytes
}

fn main() {
    let n: usize = std::env::var("BATON_BENCH_MEMORY").ok().and_then(|s| s.parse().ok()).unwrap_or(100_000);
    let before = LIVE.load(Relaxed);
    let mut c = delegation::Cycle::new(NoStorage);
    for _ in 0..n {
        c.run();
    }
    let total = LIVE.load(Relaxed) - before;
    let st = c.e.state();
    let handoffs = st.handoffs.len() as f64;
    let kinds = [
        ("handoffs", held(&st.handoffs), st.handoffs.len(), st.handoffs.sealed_len()),
        ("threads", held(&st.threads), st.threads.len(), st.threads.sealed_len()),
        ("activity", held(&st.activity), st.activity.len(), st.activity.sealed_len()),
        ("messages", held(&st.messages), st.messages.len(), st.messages.sealed_len()),
        ("the turns' tool calls", held(&st.turn_calls), st.turn_calls.len(), st.turn_calls.sealed_len()),
    ];
    let others = [("audit entries", held(&st.audit), st.audit.len())];
    println!("{} handoffs retained; live bytes per handoff: {:.0}", handoffs, total as f64 / handoffs);
    println!();
    println!("| part | records | of them sealed | bytes per handoff |");
    println!("|---|---:|---:|---:|");
    let mut counted = 0;
    for (name, bytes, len, sealed) in kinds {
        counted += bytes;
        println!("| {name} (sealed bytes and map) | {len} | {sealed} | {:.0} |", bytes as f64 / handoffs);
    }
    for (name, bytes, len) in others {
        counted += bytes;
        println!("| {name} | {len} | | {:.0} |", bytes as f64 / handoffs);
    }
    println!(
        "| the rest: indexes, the recent window, the engine, lists' unused room | | | {:.0} |",
        (total - counted) as f64 / handoffs
    );
    println!("| in all | | | {:.0} |", total as f64 / handoffs);
}
