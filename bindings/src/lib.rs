//! The wasm-bindgen binding of `baton-core` for JS/TS hosts: the same engine and the same
//! JSON as natively, with JSON text across the boundary (the npm package's JS layer turns it
//! into objects and `Error`s). Time comes in as milliseconds from the host; nothing here reads
//! a clock either.
#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
pub(crate) mod alloc;
#[cfg(target_arch = "wasm32")]
mod idb;
/// The IndexedDB-backed engine, for Rust hosts in the browser (the console) and the tests.
#[cfg(target_arch = "wasm32")]
pub mod persist;

#[cfg(feature = "js")]
mod js;
#[cfg(feature = "js")]
pub use js::*;

/// Opens a workspace's raw database (the IndexedDB bench's bare side).
#[cfg(target_arch = "wasm32")]
pub async fn open_db_for_bench(workspace: &str) -> Result<web_sys::IdbDatabase, String> {
    idb::open(workspace).await
}

/// One bare IndexedDB transaction adding one line (the IndexedDB bench's bare side).
#[cfg(target_arch = "wasm32")]
pub async fn add_for_bench(db: &web_sys::IdbDatabase, seq: u64, line: &str) -> Result<(), String> {
    idb::add(db, seq, line).await.map_err(|e| match e {
        idb::AddError::Taken => "taken".to_string(),
        idb::AddError::Failed(m) => m,
    })
}

/// Deletes a workspace's database (for tests that need a fresh one).
#[cfg(target_arch = "wasm32")]
pub async fn delete_workspace_for_tests(workspace: &str) -> Result<(), String> {
    idb::delete(workspace).await
}

/// The chunk cache's ranges of a workspace (tests).
#[cfg(target_arch = "wasm32")]
pub async fn chunk_ranges_for_tests(workspace: &str) -> Result<Vec<(u64, u64)>, String> {
    let db = idb::open(workspace).await?;
    let chunks = idb::chunks_after(&db, 0, None).await;
    db.close();
    Ok(chunks?.into_iter().map(|c| (c.first, c.last)).collect())
}

/// Deletes a workspace's log records up to `upto`, leaving its caches: what is read after
/// that can only come from the chunks (tests).
#[cfg(target_arch = "wasm32")]
pub async fn delete_log_for_tests(workspace: &str, upto: u64) -> Result<(), String> {
    let db = idb::open(workspace).await?;
    let r = idb::delete_log_for_tests(&db, upto).await;
    db.close();
    r
}

/// How many parts the workspace's newest snapshot is stored in (`None`: no snapshot, or one
/// stored whole); with `drop_part`, that part is deleted first (tests).
#[cfg(target_arch = "wasm32")]
pub async fn snapshot_parts_for_tests(workspace: &str, drop_part: Option<u32>) -> Result<Option<u32>, String> {
    let db = idb::open(workspace).await?;
    let r = idb::snapshot_parts_for_tests(&db, drop_part).await;
    db.close();
    r
}

/// Rewrites a workspace's chunks and snapshot as builds before stored them, as strings, and
/// gives how many rows it rewrote; refused when a row was not stored as bytes (tests).
#[cfg(target_arch = "wasm32")]
pub async fn caches_as_text_for_tests(workspace: &str) -> Result<usize, String> {
    let db = idb::open(workspace).await?;
    let n = idb::caches_as_text_for_tests(&db).await;
    db.close();
    n
}
