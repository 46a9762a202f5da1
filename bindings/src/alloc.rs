//! The module's allocator: dlmalloc — the allocator Rust's std uses on wasm32 — with a growth
//! policy for linear memory.
//!
//! Why not std's: it grows linear memory by what each request needs, 64 KiB at a time. In V8
//! (Node and Chromium) one `memory.grow` on a memory of 60 MB or more costs about 200 µs (it
//! also feeds the garbage collector's external-memory accounting), so a workspace whose state
//! grows steadily paid a grow every few commands: in Node at 100k retained handoffs a third of
//! a delegation cycle was `memory.grow` and the collections it triggered. Growing by an eighth
//! of the current size (at least 1 MiB) makes the number of grows logarithmic in the heap's
//! size, for at most an eighth of the heap held in reserve. Everything else is dlmalloc's.
use core::alloc::{GlobalAlloc, Layout};
use core::arch::wasm32;
use core::cell::UnsafeCell;
use core::ptr;
use core::sync::atomic::{AtomicUsize, Ordering::Relaxed};

/// Bytes handed out and not yet freed (what the program holds, without dlmalloc's overhead
/// and free space): `heapInUse()` for hosts and benches.
static IN_USE: AtomicUsize = AtomicUsize::new(0);

/// Bytes the program holds on the heap now.
#[cfg(feature = "js")]
pub fn in_use() -> usize {
    IN_USE.load(Relaxed)
}

const PAGE: usize = 65536;

/// Linear memory, grown geometrically.
struct Geometric;

// SAFETY: the methods follow dlmalloc's `Allocator` contract: `alloc` hands out fresh pages
// from `memory.grow` (zeroed, never handed out twice); nothing is ever released or remapped.
unsafe impl dlmalloc::Allocator for Geometric {
    fn alloc(&self, size: usize) -> (*mut u8, usize, u32) {
        let current = wasm32::memory_size(0) * PAGE;
        for want in [size.max(current / 8).max(1 << 20), size] {
            let pages = want.div_ceil(PAGE);
            let prev = wasm32::memory_grow(0, pages);
            if prev != usize::MAX {
                return ((prev * PAGE) as *mut u8, pages * PAGE, 0);
            }
        }
        (ptr::null_mut(), 0, 0)
    }

    fn remap(&self, _ptr: *mut u8, _old: usize, _new: usize, _can_move: bool) -> *mut u8 {
        ptr::null_mut()
    }

    fn free_part(&self, _ptr: *mut u8, _old: usize, _new: usize) -> bool {
        false
    }

    fn free(&self, _ptr: *mut u8, _size: usize) -> bool {
        false
    }

    fn can_release_part(&self, _flags: u32) -> bool {
        false
    }

    fn allocates_zeros(&self) -> bool {
        true
    }

    fn page_size(&self) -> usize {
        PAGE
    }
}

struct Allocator(UnsafeCell<dlmalloc::Dlmalloc<Geometric>>);

// SAFETY: this build of wasm32 has no threads (no `atomics` target feature): one caller at a time.
unsafe impl Sync for Allocator {}

// SAFETY: each method forwards to dlmalloc with the layout it was given.
unsafe impl GlobalAlloc for Allocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { (*self.0.get()).malloc(layout.size(), layout.align()) };
        if !p.is_null() {
            IN_USE.fetch_add(layout.size(), Relaxed);
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { (*self.0.get()).calloc(layout.size(), layout.align()) };
        if !p.is_null() {
            IN_USE.fetch_add(layout.size(), Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        IN_USE.fetch_sub(layout.size(), Relaxed);
        unsafe { (*self.0.get()).free(ptr, layout.size(), layout.align()) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { (*self.0.get()).realloc(ptr, layout.size(), layout.align(), new_size) };
        if !p.is_null() {
            IN_USE.fetch_sub(layout.size(), Relaxed);
            IN_USE.fetch_add(new_size, Relaxed);
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Allocator = Allocator(UnsafeCell::new(dlmalloc::Dlmalloc::new_with_allocator(Geometric)));
