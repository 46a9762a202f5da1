//! IndexedDB persistence for a workspace, on `web-sys` directly.
//!
//! Why not a crate: the store is one object store keyed by record number with three
//! operations (add one record, read records after a number, read the seed), and owning the
//! few lines keeps the one rule that matters in sight — inside a transaction await nothing
//! but its own requests, or the browser commits it early.
//!
//! Layout (database version 2, `baton-<workspace>`): object store `log` with key path `seq`,
//! values `{seq, line}` where `line` is the record's JSON line (the portable stored form, with
//! its own format version); object store `meta` with the workspace's id seed under `seed`, and
//! string settings of the console (`name`, `clock`, `demo`) under their own keys. Version 2
//! adds `chunks` (key path `first`): copies of full runs of records, `{first, last, bytes}` with
//! `bytes` their lines joined by `\n` — a read cache, because reading ten thousand small values
//! costs about ten times what reading the same bytes in a hundred values does. The `log` store
//! keeps every record, so appends still detect a second writer by number; a chunk that does not
//! continue the log exactly is ignored.
//! Version 3 adds `snapshots` (key path `seq`): `{seq, bytes}`, the engine's snapshot of the
//! state after record `seq` as its lines joined by `\n`; the newest is kept (writing one
//! deletes the older ones in the same transaction). Opening reads the newest snapshot and the
//! records after it; the `log` store keeps every record all the same (export, other tabs, the
//! timeline's history).
//! A chunk's and a snapshot's `bytes` are the text's UTF-8 in a `Uint8Array`: copied into wasm
//! as they are, where a string would be re-encoded character by character. Both are caches, so
//! their form changes without a schema step; a row stored as a string (`text`, by builds before)
//! is still read.
//! Version 4 adds `views` (key path `name`): `{name, seq, bytes}`, a view's picture kept as bytes
//! after record `seq` (the console's swimlanes of a large workspace), so the next opening can
//! draw it before the engine has read the log. A cache too: it is used only while `seq` is
//! still the log's last record.
//! Version 5 adds `snapshot_parts` (key path `[seq, part]`): `{seq, part, bytes}`, a snapshot's
//! lines in parts of a few thousand, so that opening reads the next parts while it restores
//! the ones it has (one value of 55 MB at 100,000 handoffs was read whole before the restore
//! could begin). Its `snapshots` row is then `{seq, parts}`, written in the same transaction
//! as its parts; a row with `bytes` (or `text`) is a snapshot whole, as builds before wrote it.
//! A schema change bumps the database version and adds its step to `upgrade`.
use js_sys::{Array, Object, Promise, Reflect, Uint8Array};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    IdbDatabase, IdbFactory, IdbKeyRange, IdbObjectStoreParameters, IdbOpenDbRequest, IdbRequest, IdbTransactionMode,
};

/// Database schema version.
pub const DB_VERSION: u32 = 5;
const LOG: &str = "log";
const META: &str = "meta";
const CHUNKS: &str = "chunks";
const SNAPSHOTS: &str = "snapshots";
const SNAPSHOT_PARTS: &str = "snapshot_parts";
const VIEWS: &str = "views";

/// Why an append did not happen.
pub enum AddError {
    /// Another writer already stored a record under this number.
    Taken,
    /// IndexedDB refused for another reason.
    Failed(String),
}

fn js_err(v: JsValue) -> String {
    v.dyn_ref::<web_sys::DomException>()
        .map(|e| format!("{}: {}", e.name(), e.message()))
        .or_else(|| v.as_string())
        .unwrap_or_else(|| format!("{v:?}"))
}

fn factory() -> Result<IdbFactory, String> {
    let global = js_sys::global();
    let idb = Reflect::get(&global, &"indexedDB".into()).map_err(js_err)?;
    idb.dyn_into::<IdbFactory>().map_err(|_| "this environment has no IndexedDB".to_string())
}

/// Resolves when the request succeeds (with its result), rejects with its error.
async fn done(req: &IdbRequest) -> Result<JsValue, JsValue> {
    JsFuture::from(outcome(req)).await
}

/// The request's outcome as a promise, its handlers set now: a request that finishes before
/// the promise is awaited (while the page had its turn) still settles it.
fn outcome(req: &IdbRequest) -> Promise {
    Promise::new(&mut |resolve, reject| {
        let r = req.clone();
        let ok = Closure::once_into_js(move |_e: web_sys::Event| {
            let _ = resolve.call1(&JsValue::NULL, &r.result().unwrap_or(JsValue::UNDEFINED));
        });
        let r = req.clone();
        let bad = Closure::once_into_js(move |e: web_sys::Event| {
            e.prevent_default();
            let err = r.error().ok().flatten().map(JsValue::from).unwrap_or(JsValue::from_str("request failed"));
            let _ = reject.call1(&JsValue::NULL, &err);
        });
        req.set_onsuccess(Some(ok.unchecked_ref()));
        req.set_onerror(Some(bad.unchecked_ref()));
    })
}

/// Resolves when the transaction commits; rejects when it aborts or fails.
async fn committed(tx: &web_sys::IdbTransaction) -> Result<(), JsValue> {
    let promise = Promise::new(&mut |resolve, reject| {
        let ok = Closure::once_into_js(move |_e: web_sys::Event| {
            let _ = resolve.call0(&JsValue::NULL);
        });
        let t = tx.clone();
        let reject2 = reject.clone();
        let bad = Closure::once_into_js(move |_e: web_sys::Event| {
            let err = t.error().map(JsValue::from).unwrap_or(JsValue::from_str("transaction failed"));
            let _ = reject.call1(&JsValue::NULL, &err);
        });
        let abort = Closure::once_into_js(move |_e: web_sys::Event| {
            let _ = reject2.call1(&JsValue::NULL, &JsValue::from_str("transaction aborted"));
        });
        tx.set_oncomplete(Some(ok.unchecked_ref()));
        tx.set_onerror(Some(bad.unchecked_ref()));
        tx.set_onabort(Some(abort.unchecked_ref()));
    });
    JsFuture::from(promise).await.map(|_| ())
}

/// Opens (creating or upgrading) the workspace's database.
pub async fn open(workspace: &str) -> Result<IdbDatabase, String> {
    let req: IdbOpenDbRequest = factory()?.open_with_u32(&format!("baton-{workspace}"), DB_VERSION).map_err(js_err)?;
    let upgrade = Closure::once_into_js(move |e: web_sys::IdbVersionChangeEvent| {
        let Some(target) = e.target() else { return };
        let Ok(req) = target.dyn_into::<IdbRequest>() else { return };
        let Ok(db) = req.result().and_then(|r| r.dyn_into::<IdbDatabase>()) else { return };
        // Version 1: the log and the meta store.
        if e.old_version() < 1.0 {
            let params = IdbObjectStoreParameters::new();
            params.set_key_path(&JsValue::from_str("seq"));
            let _ = db.create_object_store_with_optional_parameters(LOG, &params);
            let _ = db.create_object_store(META);
        }
        // Version 2: the chunk cache.
        if e.old_version() < 2.0 {
            let params = IdbObjectStoreParameters::new();
            params.set_key_path(&JsValue::from_str("first"));
            let _ = db.create_object_store_with_optional_parameters(CHUNKS, &params);
        }
        // Version 3: snapshots.
        if e.old_version() < 3.0 {
            let params = IdbObjectStoreParameters::new();
            params.set_key_path(&JsValue::from_str("seq"));
            let _ = db.create_object_store_with_optional_parameters(SNAPSHOTS, &params);
        }
        // Version 4: kept views.
        if e.old_version() < 4.0 {
            let params = IdbObjectStoreParameters::new();
            params.set_key_path(&JsValue::from_str("name"));
            let _ = db.create_object_store_with_optional_parameters(VIEWS, &params);
        }
        // Version 5: snapshots in parts.
        if e.old_version() < 5.0 {
            let params = IdbObjectStoreParameters::new();
            params.set_key_path(&Array::of2(&"seq".into(), &"part".into()));
            let _ = db.create_object_store_with_optional_parameters(SNAPSHOT_PARTS, &params);
        }
    });
    req.set_onupgradeneeded(Some(upgrade.unchecked_ref()));
    let db = done(&req).await.map_err(js_err)?;
    db.dyn_into::<IdbDatabase>().map_err(|_| "open did not give a database".to_string())
}

/// Deletes a workspace's database (tests, and the console's "delete workspace").
pub async fn delete(workspace: &str) -> Result<(), String> {
    let req = factory()?.delete_database(&format!("baton-{workspace}")).map_err(js_err)?;
    done(&req).await.map(|_| ()).map_err(js_err)
}

/// The stored seed, if any.
pub async fn seed(db: &IdbDatabase) -> Result<Option<f64>, String> {
    let tx = db.transaction_with_str(META).map_err(js_err)?;
    let store = tx.object_store(META).map_err(js_err)?;
    let v = done(&store.get(&"seed".into()).map_err(js_err)?).await.map_err(js_err)?;
    Ok(v.as_f64())
}

/// Stores the seed (once, when a workspace is created).
pub async fn set_seed(db: &IdbDatabase, seed: f64) -> Result<(), String> {
    let tx = db.transaction_with_str_and_mode(META, IdbTransactionMode::Readwrite).map_err(js_err)?;
    let store = tx.object_store(META).map_err(js_err)?;
    store.put_with_key(&JsValue::from_f64(seed), &"seed".into()).map_err(js_err)?;
    committed(&tx).await.map_err(js_err)
}

/// Appends one record in one transaction; the record is stored only if the transaction
/// commits. `Taken` when another writer already stored that number (`add`, not `put`).
pub async fn add(db: &IdbDatabase, seq: u64, line: &str) -> Result<(), AddError> {
    let fail = |v: JsValue| AddError::Failed(js_err(v));
    let tx = db.transaction_with_str_and_mode(LOG, IdbTransactionMode::Readwrite).map_err(fail)?;
    let store = tx.object_store(LOG).map_err(fail)?;
    let value = Object::new();
    Reflect::set(&value, &"seq".into(), &JsValue::from_f64(seq as f64)).map_err(fail)?;
    Reflect::set(&value, &"line".into(), &JsValue::from_str(line)).map_err(fail)?;
    let req = store.add(&value).map_err(fail)?;
    let added = done(&req).await;
    let result = committed(&tx).await;
    match (added, result) {
        (Ok(_), Ok(())) => Ok(()),
        (Err(e), _) | (_, Err(e)) => {
            let text = js_err(e);
            if text.starts_with("ConstraintError") {
                Err(AddError::Taken)
            } else {
                Err(AddError::Failed(text))
            }
        }
    }
}

/// Starts reading the record lines after record number `after`, at most `count` of them when
/// given (the request is under way when this returns; [`read_lines`] awaits it). Lets a reader
/// fetch the next batch while it works on the last one.
pub fn start_lines(db: &IdbDatabase, after: u64, count: Option<u32>) -> Result<IdbRequest, String> {
    let tx = db.transaction_with_str(LOG).map_err(js_err)?;
    let store = tx.object_store(LOG).map_err(js_err)?;
    let range = IdbKeyRange::lower_bound_with_open(&JsValue::from_f64(after as f64), true).map_err(js_err)?;
    match count {
        Some(n) => store.get_all_with_key_and_limit(&range, n),
        None => store.get_all_with_key(&range),
    }
    .map_err(js_err)
}

/// The lines a [`start_lines`] request read, in order.
pub async fn read_lines(req: &IdbRequest) -> Result<Vec<String>, String> {
    let all = done(req).await.map_err(js_err)?;
    let rows: Array = all.dyn_into().map_err(|_| "getAll did not give a list".to_string())?;
    rows.iter()
        .map(|row| {
            Reflect::get(&row, &"line".into())
                .ok()
                .and_then(|l| l.as_string())
                .ok_or_else(|| "a stored row has no line".to_string())
        })
        .collect()
}

/// Every stored record line after record number `after`, in order.
pub async fn lines_after(db: &IdbDatabase, after: u64) -> Result<Vec<String>, String> {
    read_lines(&start_lines(db, after, None)?).await
}

/// Adds many records in one transaction: all are stored, or none (an import).
pub async fn add_all(db: &IdbDatabase, lines: &[(u64, String)]) -> Result<(), String> {
    let tx = db.transaction_with_str_and_mode(LOG, IdbTransactionMode::Readwrite).map_err(js_err)?;
    let store = tx.object_store(LOG).map_err(js_err)?;
    for (seq, line) in lines {
        let value = Object::new();
        Reflect::set(&value, &"seq".into(), &JsValue::from_f64(*seq as f64)).map_err(js_err)?;
        Reflect::set(&value, &"line".into(), &JsValue::from_str(line)).map_err(js_err)?;
        store.add(&value).map_err(js_err)?;
    }
    committed(&tx).await.map_err(js_err)
}

/// A string setting from the meta store.
pub async fn meta_get(db: &IdbDatabase, key: &str) -> Result<Option<String>, String> {
    let tx = db.transaction_with_str(META).map_err(js_err)?;
    let store = tx.object_store(META).map_err(js_err)?;
    let v = done(&store.get(&key.into()).map_err(js_err)?).await.map_err(js_err)?;
    Ok(v.as_string())
}

/// Stores a string setting in the meta store, in its own transaction.
pub async fn meta_put(db: &IdbDatabase, key: &str, value: &str) -> Result<(), String> {
    let tx = db.transaction_with_str_and_mode(META, IdbTransactionMode::Readwrite).map_err(js_err)?;
    let store = tx.object_store(META).map_err(js_err)?;
    store.put_with_key(&JsValue::from_str(value), &key.into()).map_err(js_err)?;
    committed(&tx).await.map_err(js_err)
}

/// The workspaces in this profile: the databases named `baton-<workspace>`, by name.
/// (`indexedDB.databases()`, called through `Reflect`: web-sys gates it as unstable.)
pub async fn workspaces() -> Result<Vec<String>, String> {
    let f = factory()?;
    let databases = Reflect::get(&f, &"databases".into()).map_err(js_err)?;
    let databases: js_sys::Function =
        databases.dyn_into().map_err(|_| "indexedDB.databases() is not supported here".to_string())?;
    let promise: Promise = databases.call0(&f).map_err(js_err)?.dyn_into().map_err(|_| "not a promise".to_string())?;
    let list: Array =
        JsFuture::from(promise).await.map_err(js_err)?.dyn_into().map_err(|_| "not a list".to_string())?;
    let mut names: Vec<String> = list
        .iter()
        .filter_map(|d| Reflect::get(&d, &"name".into()).ok().and_then(|n| n.as_string()))
        .filter_map(|n| n.strip_prefix("baton-").map(str::to_string))
        .collect();
    names.sort();
    Ok(names)
}

/// One chunk to store: records `first..=last`, their lines joined by `\n`.
pub struct Chunk {
    /// First record number.
    pub first: u64,
    /// Last record number.
    pub last: u64,
    /// The lines.
    pub text: String,
}

/// One stored chunk, its text still in JavaScript until [`StoredChunk::text`] copies it in (so
/// a catch-up holds one chunk's text in wasm at a time, not every chunk's).
pub struct StoredChunk {
    /// First record number.
    pub first: u64,
    /// Last record number.
    pub last: u64,
    row: JsValue,
}

impl StoredChunk {
    /// The chunk's lines joined by `\n`.
    pub fn text(&self) -> Result<String, String> {
        stored_text(&self.row).ok_or_else(|| "a stored chunk is malformed".to_string())
    }
}

/// The text of a stored chunk or snapshot: its `bytes` (UTF-8), or its `text` when a build
/// before stored it as a string.
fn stored_text(row: &JsValue) -> Option<String> {
    let bytes = Reflect::get(row, &"bytes".into()).ok()?;
    match bytes.dyn_ref::<Uint8Array>() {
        Some(bytes) => String::from_utf8(bytes.to_vec()).ok(),
        None => Reflect::get(row, &"text".into()).ok()?.as_string(),
    }
}

/// `text` as the `bytes` of a stored chunk or snapshot.
fn text_bytes(text: &str) -> Uint8Array {
    Uint8Array::from(text.as_bytes())
}

/// The chunks that start after record number `after`, in order; at most `count` when given.
pub async fn chunks_after(db: &IdbDatabase, after: u64, count: Option<u32>) -> Result<Vec<StoredChunk>, String> {
    read_chunks(start_chunks(db, after, count)?).await
}

/// Asks for the chunks that start after record number `after` (at most `count`), to read
/// with [`read_chunks`]: IndexedDB reads them while the page goes on.
pub fn start_chunks(db: &IdbDatabase, after: u64, count: Option<u32>) -> Result<JsFuture, String> {
    let tx = db.transaction_with_str(CHUNKS).map_err(js_err)?;
    let store = tx.object_store(CHUNKS).map_err(js_err)?;
    let range = IdbKeyRange::lower_bound_with_open(&JsValue::from_f64(after as f64), true).map_err(js_err)?;
    let req = match count {
        Some(n) => store.get_all_with_key_and_limit(&range, n),
        None => store.get_all_with_key(&range),
    };
    Ok(JsFuture::from(outcome(&req.map_err(js_err)?)))
}

/// The chunks a [`start_chunks`] request read, in order.
pub async fn read_chunks(request: JsFuture) -> Result<Vec<StoredChunk>, String> {
    let all = request.await.map_err(js_err)?;
    let rows: Array = all.dyn_into().map_err(|_| "getAll did not give a list".to_string())?;
    rows.iter()
        .map(|row| {
            let num = |k: &str| Reflect::get(&row, &k.into()).ok().and_then(|v| v.as_f64()).map(|f| f as u64);
            match (num("first"), num("last")) {
                (Some(first), Some(last)) => Ok(StoredChunk { first, last, row }),
                _ => Err("a stored chunk is malformed".to_string()),
            }
        })
        .collect()
}

/// Stores chunks in one transaction (`put`: two tabs writing the same chunk write the same
/// value, since stored records never change).
pub async fn put_chunks(db: &IdbDatabase, chunks: &[Chunk]) -> Result<(), String> {
    let tx = db.transaction_with_str_and_mode(CHUNKS, IdbTransactionMode::Readwrite).map_err(js_err)?;
    let store = tx.object_store(CHUNKS).map_err(js_err)?;
    for c in chunks {
        let value = Object::new();
        Reflect::set(&value, &"first".into(), &JsValue::from_f64(c.first as f64)).map_err(js_err)?;
        Reflect::set(&value, &"last".into(), &JsValue::from_f64(c.last as f64)).map_err(js_err)?;
        Reflect::set(&value, &"bytes".into(), &text_bytes(&c.text)).map_err(js_err)?;
        store.put(&value).map_err(js_err)?;
    }
    committed(&tx).await.map_err(js_err)
}

/// The newest stored snapshot, as [`latest_snapshot`] finds it.
pub enum StoredSnapshot {
    /// Written whole (builds before snapshots in parts): its text.
    Whole(String),
    /// Written in parts: the record it is after and how many parts, read with
    /// [`start_snapshot_parts`].
    Parts { seq: u64, parts: u32 },
}

/// The newest stored snapshot, if any.
pub async fn latest_snapshot(db: &IdbDatabase) -> Result<Option<StoredSnapshot>, String> {
    let tx = db.transaction_with_str(SNAPSHOTS).map_err(js_err)?;
    let store = tx.object_store(SNAPSHOTS).map_err(js_err)?;
    let req = store
        .open_cursor_with_range_and_direction(&JsValue::UNDEFINED, web_sys::IdbCursorDirection::Prev)
        .map_err(js_err)?;
    let cursor = done(&req).await.map_err(js_err)?;
    if cursor.is_null() || cursor.is_undefined() {
        return Ok(None);
    }
    let cursor: web_sys::IdbCursorWithValue = cursor.dyn_into().map_err(|_| "not a cursor".to_string())?;
    let row = cursor.value().map_err(js_err)?;
    let num = |k: &str| Reflect::get(&row, &k.into()).ok().and_then(|v| v.as_f64()).map(|f| f as u64);
    match (num("seq"), num("parts")) {
        (Some(seq), Some(parts)) => Ok(Some(StoredSnapshot::Parts { seq, parts: parts as u32 })),
        (Some(_), None) => match stored_text(&row) {
            Some(text) => Ok(Some(StoredSnapshot::Whole(text))),
            None => Err("a stored snapshot is malformed".to_string()),
        },
        _ => Err("a stored snapshot is malformed".to_string()),
    }
}

/// Asks for up to `count` parts of the snapshot after record `seq`, from part `from` on, to
/// read with [`read_snapshot_parts`]: IndexedDB reads them while the page goes on.
pub fn start_snapshot_parts(db: &IdbDatabase, seq: u64, from: u32, count: u32) -> Result<JsFuture, String> {
    let tx = db.transaction_with_str(SNAPSHOT_PARTS).map_err(js_err)?;
    let store = tx.object_store(SNAPSHOT_PARTS).map_err(js_err)?;
    let key = |part: f64| Array::of2(&JsValue::from_f64(seq as f64), &JsValue::from_f64(part));
    let range = IdbKeyRange::bound(&key(from as f64), &key(f64::from(u32::MAX))).map_err(js_err)?;
    let req = store.get_all_with_key_and_limit(&range, count).map_err(js_err)?;
    Ok(JsFuture::from(outcome(&req)))
}

/// The parts a [`start_snapshot_parts`] request read, in order: (part number, text).
pub async fn read_snapshot_parts(request: JsFuture) -> Result<Vec<(u32, String)>, String> {
    let all = request.await.map_err(js_err)?;
    let rows: Array = all.dyn_into().map_err(|_| "getAll did not give a list".to_string())?;
    rows.iter()
        .map(|row| {
            let part = Reflect::get(&row, &"part".into()).ok().and_then(|v| v.as_f64());
            match (part, stored_text(&row)) {
                (Some(part), Some(text)) => Ok((part as u32, text)),
                _ => Err("a stored snapshot part is malformed".to_string()),
            }
        })
        .collect()
}

/// Stores a snapshot — its parts, then the row that names how many — and deletes the older
/// ones, in one transaction: after it commits the new one is the newest; if it fails, the
/// previous one is still whole.
pub async fn put_snapshot(db: &IdbDatabase, seq: u64, parts: &mut dyn Iterator<Item = String>) -> Result<(), String> {
    let names = Array::of2(&SNAPSHOTS.into(), &SNAPSHOT_PARTS.into());
    let tx = db.transaction_with_str_sequence_and_mode(&names, IdbTransactionMode::Readwrite).map_err(js_err)?;
    let store = tx.object_store(SNAPSHOTS).map_err(js_err)?;
    let part_store = tx.object_store(SNAPSHOT_PARTS).map_err(js_err)?;
    let seq_js = JsValue::from_f64(seq as f64);
    let mut count = 0u32;
    for text in parts {
        let value = Object::new();
        Reflect::set(&value, &"seq".into(), &seq_js).map_err(js_err)?;
        Reflect::set(&value, &"part".into(), &JsValue::from_f64(f64::from(count))).map_err(js_err)?;
        Reflect::set(&value, &"bytes".into(), &text_bytes(&text)).map_err(js_err)?;
        part_store.put(&value).map_err(js_err)?;
        count += 1;
    }
    let value = Object::new();
    Reflect::set(&value, &"seq".into(), &seq_js).map_err(js_err)?;
    Reflect::set(&value, &"parts".into(), &JsValue::from_f64(f64::from(count))).map_err(js_err)?;
    store.put(&value).map_err(js_err)?;
    let older = IdbKeyRange::upper_bound_with_open(&seq_js, true).map_err(js_err)?;
    store.delete(&older).map_err(js_err)?;
    // Every part of an older snapshot sorts before `[seq, 0]`; a part of this one past its
    // last (a snapshot at the same record written before with more parts) after `[seq, count - 1]`.
    let key = |part: f64| Array::of2(&seq_js, &JsValue::from_f64(part));
    let before = IdbKeyRange::upper_bound_with_open(&key(0.0), true).map_err(js_err)?;
    part_store.delete(&before).map_err(js_err)?;
    let past = IdbKeyRange::bound(&key(f64::from(count)), &key(f64::from(u32::MAX))).map_err(js_err)?;
    part_store.delete(&past).map_err(js_err)?;
    committed(&tx).await.map_err(js_err)
}

/// The stored snapshot's whole text (an export), if there is one.
pub async fn snapshot_text(db: &IdbDatabase) -> Result<Option<String>, String> {
    match latest_snapshot(db).await? {
        None => Ok(None),
        Some(StoredSnapshot::Whole(text)) => Ok(Some(text)),
        Some(StoredSnapshot::Parts { seq, parts }) => {
            let read = read_snapshot_parts(start_snapshot_parts(db, seq, 0, parts)?).await?;
            if read.len() != parts as usize || read.iter().enumerate().any(|(i, (p, _))| *p as usize != i) {
                return Err(format!("the snapshot after record {seq} is missing parts"));
            }
            Ok(Some(read.into_iter().map(|(_, t)| t).collect::<Vec<_>>().join("\n")))
        }
    }
}

/// Lets the page's event loop run (drawing, input) before going on: a message posted to a
/// channel of its own, where a timer set from a timer is held back at least 4 ms by browsers.
/// Goes on at once where there is no `MessageChannel`.
pub async fn yield_to_page() {
    // The channel is held here until its message arrives.
    let channel = Reflect::get(&js_sys::global(), &"MessageChannel".into())
        .ok()
        .and_then(|c| c.dyn_into::<js_sys::Function>().ok())
        .and_then(|c| Reflect::construct(&c, &Array::new()).ok());
    let port = |p: &str| channel.as_ref().and_then(|c| Reflect::get(c, &p.into()).ok());
    let (Some(receiver), Some(sender)) = (port("port1"), port("port2")) else { return };
    let Some(post) =
        Reflect::get(&sender, &"postMessage".into()).ok().and_then(|f| f.dyn_into::<js_sys::Function>().ok())
    else {
        return;
    };
    let promise = Promise::new(&mut |resolve, _| {
        let posted = Reflect::set(&receiver, &"onmessage".into(), &resolve).is_ok()
            && post.call1(&sender, &JsValue::from_f64(0.0)).is_ok();
        if !posted {
            let _ = resolve.call0(&JsValue::NULL);
        }
    });
    let _ = JsFuture::from(promise).await;
    drop(channel);
}

/// The number of the log's last record (0: none).
pub async fn last_seq(db: &IdbDatabase) -> Result<u64, String> {
    let tx = db.transaction_with_str(LOG).map_err(js_err)?;
    let store = tx.object_store(LOG).map_err(js_err)?;
    let req = store
        .open_key_cursor_with_range_and_direction(&JsValue::UNDEFINED, web_sys::IdbCursorDirection::Prev)
        .map_err(js_err)?;
    let cursor = done(&req).await.map_err(js_err)?;
    if cursor.is_null() || cursor.is_undefined() {
        return Ok(0);
    }
    let cursor: web_sys::IdbCursor = cursor.dyn_into().map_err(|_| "not a cursor".to_string())?;
    cursor.key().map_err(js_err)?.as_f64().map(|f| f as u64).ok_or_else(|| "a log key is not a number".to_string())
}

/// A kept view: (the record it reflects, its bytes).
pub async fn view(db: &IdbDatabase, name: &str) -> Result<Option<(u64, Vec<u8>)>, String> {
    let tx = db.transaction_with_str(VIEWS).map_err(js_err)?;
    let store = tx.object_store(VIEWS).map_err(js_err)?;
    let row = done(&store.get(&name.into()).map_err(js_err)?).await.map_err(js_err)?;
    if row.is_null() || row.is_undefined() {
        return Ok(None);
    }
    let seq = Reflect::get(&row, &"seq".into()).ok().and_then(|v| v.as_f64()).map(|f| f as u64);
    let bytes = Reflect::get(&row, &"bytes".into()).ok().and_then(|b| b.dyn_into::<Uint8Array>().ok());
    match (seq, bytes) {
        (Some(seq), Some(bytes)) => Ok(Some((seq, bytes.to_vec()))),
        _ => Err("a kept view is malformed".to_string()),
    }
}

/// Keeps a view's bytes as of record `seq`, in place of the one kept before.
pub async fn put_view(db: &IdbDatabase, name: &str, seq: u64, bytes: &[u8]) -> Result<(), String> {
    let tx = db.transaction_with_str_and_mode(VIEWS, IdbTransactionMode::Readwrite).map_err(js_err)?;
    let store = tx.object_store(VIEWS).map_err(js_err)?;
    let value = Object::new();
    Reflect::set(&value, &"name".into(), &JsValue::from_str(name)).map_err(js_err)?;
    Reflect::set(&value, &"seq".into(), &JsValue::from_f64(seq as f64)).map_err(js_err)?;
    Reflect::set(&value, &"bytes".into(), &Uint8Array::from(bytes)).map_err(js_err)?;
    store.put(&value).map_err(js_err)?;
    committed(&tx).await.map_err(js_err)
}

/// For tests: deletes the log's records up to `upto`.
pub async fn delete_log_for_tests(db: &IdbDatabase, upto: u64) -> Result<(), String> {
    let tx = db.transaction_with_str_and_mode(LOG, IdbTransactionMode::Readwrite).map_err(js_err)?;
    let store = tx.object_store(LOG).map_err(js_err)?;
    let range = IdbKeyRange::upper_bound(&JsValue::from_f64(upto as f64)).map_err(js_err)?;
    store.delete(&range).map_err(js_err)?;
    committed(&tx).await.map_err(js_err)
}

/// For tests: every stored chunk and snapshot rewritten in the form builds before this one
/// stored them — a chunk as `text`, a string, where it now stores `bytes`; a snapshot whole, as
/// `text`, where it is now stored in parts — and gives how many it rewrote.
pub async fn caches_as_text_for_tests(db: &IdbDatabase) -> Result<usize, String> {
    let mut n = 0;
    let tx = db.transaction_with_str_and_mode(CHUNKS, IdbTransactionMode::Readwrite).map_err(js_err)?;
    let store = tx.object_store(CHUNKS).map_err(js_err)?;
    let all = done(&store.get_all().map_err(js_err)?).await.map_err(js_err)?;
    let rows: Array = all.dyn_into().map_err(|_| "getAll did not give a list".to_string())?;
    for row in rows.iter() {
        let text = stored_text(&row).ok_or("a stored cache row is malformed")?;
        if Reflect::get(&row, &"bytes".into()).map_err(js_err)?.dyn_ref::<Uint8Array>().is_none() {
            return Err("a cache row is not stored as bytes".to_string());
        }
        Reflect::delete_property(row.unchecked_ref::<Object>(), &"bytes".into()).map_err(js_err)?;
        Reflect::set(&row, &"text".into(), &JsValue::from_str(&text)).map_err(js_err)?;
        store.put(&row).map_err(js_err)?;
        n += 1;
    }
    committed(&tx).await.map_err(js_err)?;
    let seq = match latest_snapshot(db).await? {
        None => return Ok(n),
        Some(StoredSnapshot::Whole(_)) => return Err("a snapshot is not stored in parts".to_string()),
        Some(StoredSnapshot::Parts { seq, .. }) => seq,
    };
    let text = snapshot_text(db).await?.ok_or("the snapshot went away")?;
    let names = Array::of2(&SNAPSHOTS.into(), &SNAPSHOT_PARTS.into());
    let tx = db.transaction_with_str_sequence_and_mode(&names, IdbTransactionMode::Readwrite).map_err(js_err)?;
    let value = Object::new();
    Reflect::set(&value, &"seq".into(), &JsValue::from_f64(seq as f64)).map_err(js_err)?;
    Reflect::set(&value, &"text".into(), &JsValue::from_str(&text)).map_err(js_err)?;
    tx.object_store(SNAPSHOTS).map_err(js_err)?.put(&value).map_err(js_err)?;
    tx.object_store(SNAPSHOT_PARTS).map_err(js_err)?.clear().map_err(js_err)?;
    committed(&tx).await.map_err(js_err)?;
    Ok(n + 1)
}

/// For tests: how many parts the newest snapshot is stored in, after deleting `drop_part`.
pub async fn snapshot_parts_for_tests(db: &IdbDatabase, drop_part: Option<u32>) -> Result<Option<u32>, String> {
    let Some(StoredSnapshot::Parts { seq, parts }) = latest_snapshot(db).await? else { return Ok(None) };
    if let Some(part) = drop_part {
        let tx = db.transaction_with_str_and_mode(SNAPSHOT_PARTS, IdbTransactionMode::Readwrite).map_err(js_err)?;
        let key = Array::of2(&JsValue::from_f64(seq as f64), &JsValue::from_f64(f64::from(part)));
        tx.object_store(SNAPSHOT_PARTS).map_err(js_err)?.delete(&key).map_err(js_err)?;
        committed(&tx).await.map_err(js_err)?;
    }
    Ok(Some(parts))
}
