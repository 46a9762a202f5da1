//! A file of framed entries, written a batch at a time: after a crash a batch is there whole or
//! not at all. It is the first part of the record log `baton serve` is to keep beside SQLite
//! (docs/DECISIONS.md, "A log of its own for `baton serve`'s records"): one write and, when
//! commits are to survive a power loss, one `fdatasync` a batch.
//!
//! **Frames.** Every entry is a frame: a mark byte, the entry's length, a checksum, its kind and
//! its number, then its bytes. A batch ends with a frame of kind [`COMMIT`] that counts the
//! batch's entries. Each checksum (CRC-32) starts from the one before it in the file, so a frame
//! left over from an earlier, longer write never checks out behind newer ones.
//!
//! **Room ahead.** The file is grown a chunk at a time with zeros, written and synced once, and
//! batches are written into that room. A commit's sync then writes the batch's pages and no
//! metadata: a file that grows with every commit syncs its new size each time, which costs
//! about as much as the batch (the durable bench, docs/PERFORMANCE.md). The next chunk is
//! written on a thread of its own while half a chunk is still left, so no batch waits for it.
//! A zero byte where a frame's mark should be is the end.
//!
//! **Direct writes.** When commits are synced, batches go to the disk with `O_DIRECT` (Linux),
//! past the page cache: a commit then costs one write of the blocks it touches and one
//! `fdatasync` that only flushes the device, where a write through the page cache also copies
//! the batch into it and has the sync look for and write back its dirty pages (the durable
//! bench's figures: docs/PERFORMANCE.md, "Direct writes for the records file").
//! Direct writes must start and end on a block boundary, so the log keeps the committed bytes of
//! the last, partly written block and writes them again in front of the next batch: the same
//! bytes, as writing back through the page cache writes its whole page. A file system that refuses
//! `O_DIRECT` (tmpfs on an older kernel) gets writes through the page cache as before, and so
//! do commits that are not synced (there the page cache is the point). Readers read through the
//! page cache, which a direct write keeps coherent.
//!
//! **Opening** reads every frame from the start and hands each committed entry to the caller.
//! It stops at the first frame that does not check out. Whatever follows the last commit frame
//! (a batch cut short by a crash, which was never answered, or damage) is copied to a file of
//! its own beside the log (`<log>.cut-<offset>`), reported, and written over with zeros, so the
//! room ahead is clean again.
//!
//! **Opened for reading only** (a read-only disk, or a log another process writes), the same
//! committed entries are handed over, nothing is cut, and commits are refused.
//!
//! **Readers** on other threads read committed entries through a [`Reader`]; they never see a
//! batch before its commit has returned.
//!
//! Written here rather than taken from a crate: the write-ahead-log crates looked at (`walogs`,
//! `wal-db`) append and recover entries one at a time, and a batch of records, effects and
//! answers must count as one.
use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// The kind of the frame that ends a batch; entries have kinds 1 to 255.
pub const COMMIT: u8 = 0;

/// How much room is written ahead at a time, at least.
pub const CHUNK: u64 = 4 << 20;

/// The largest entry, in bytes (a frame's length is a `u32`).
pub const MAX_ENTRY: usize = u32::MAX as usize;

/// The first byte of every frame. The room ahead is zeros, so it never reads as a frame.
const MARK: u8 = 0xB7;

/// A frame's header: mark, length, checksum, kind, number.
const HEADER: usize = 1 + 4 + 4 + 1 + 8;

/// Where direct writes start and end, and how their memory is aligned: the largest logical
/// block size disks have, a multiple of the smaller ones.
const BLOCK: u64 = 4096;

/// One entry of the log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// What it is, 1 to 255 (the caller's own meaning).
    pub kind: u8,
    /// Its number (the caller's own meaning: a record's or an effect's).
    pub number: u64,
    pub bytes: Vec<u8>,
}

/// Entries to commit together.
#[derive(Debug, Default)]
pub struct Batch {
    data: Vec<u8>,
    /// Each entry's kind, number and end in `data`.
    entries: Vec<(u8, u64, usize)>,
}

impl Batch {
    pub fn new() -> Batch {
        Batch::default()
    }

    /// Adds an entry. Panics on kind [`COMMIT`] or bytes over [`MAX_ENTRY`]: the caller's kinds
    /// and sizes are its own constants and limits.
    pub fn push(&mut self, kind: u8, number: u64, bytes: &[u8]) {
        assert_ne!(kind, COMMIT, "kind 0 ends a batch");
        assert!(bytes.len() <= MAX_ENTRY, "an entry of {} bytes", bytes.len());
        self.data.extend_from_slice(bytes);
        self.entries.push((kind, number, self.data.len()));
    }

    /// How many entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The bytes the batch takes in the log, its commit frame included.
    pub fn framed_len(&self) -> u64 {
        (self.data.len() + HEADER * (self.entries.len() + 1)) as u64
    }

    /// Where each entry's frame starts, in order, once the batch is committed at `start` (what
    /// [`FileLog::commit`] returns).
    pub fn offsets(&self, start: u64) -> impl Iterator<Item = u64> + '_ {
        let mut at = start;
        let mut from = 0;
        self.entries.iter().map(move |&(_, _, stop)| {
            let here = at;
            at += (HEADER + stop - from) as u64;
            from = stop;
            here
        })
    }

    /// Empties the batch, keeping its room.
    pub fn clear(&mut self) {
        self.data.clear();
        self.entries.clear();
    }
}

/// What opening found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opened {
    /// Committed entries read (commit frames not counted).
    pub entries: u64,
    /// Committed batches read.
    pub batches: u64,
    /// Bytes after the last committed batch that were not zero (a batch cut short, or damage),
    /// now zeros in the log and kept in `<log>.cut-<offset>`.
    pub cut: u64,
}

/// Why a commit failed. After a failed write or sync nothing more is committed until the log is
/// opened again: what reached the disk is then unknown.
#[derive(Debug)]
pub enum CommitError {
    Io(io::Error),
    /// An earlier write or sync failed.
    Failed,
    /// The log was opened for reading only.
    ReadOnly,
}

impl std::fmt::Display for CommitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CommitError::Io(e) => write!(f, "the log's file refused the batch: {e}"),
            CommitError::Failed => f.write_str("an earlier write to the log's file failed; it must be opened again"),
            CommitError::ReadOnly => f.write_str("the log's file is open for reading only (a read-only disk or file)"),
        }
    }
}

impl std::error::Error for CommitError {}

/// A log file open for writing (one writer).
pub struct FileLog {
    file: Arc<File>,
    /// Where the next batch goes: the end of the last committed one. Readers see it.
    end: Arc<AtomicU64>,
    /// The checksum of the last committed frame: the next frame's starts from it.
    chain: u32,
    /// The file's length: room written ahead up to here.
    room: u64,
    /// Room being written ahead on a thread of its own, and what it grows the room to.
    growing: Option<std::thread::JoinHandle<io::Result<u64>>>,
    /// Whether a commit waits for its bytes to be on the disk.
    sync: bool,
    /// Opened for writing (not [`FileLog::open_read_only`]).
    writable: bool,
    failed: bool,
    /// The end of the batches known to be on the disk (see [`FileLog::synced`]).
    synced: u64,
    scratch: Vec<u8>,
    /// Synced commits written past the page cache, when the file system allows it.
    direct: Option<Direct>,
}

/// The log's file opened for direct writes, and the committed bytes of its last, partly
/// written block (written again in front of the next batch).
struct Direct {
    file: File,
    tail: Vec<u8>,
    /// The memory a write is made from: [`aligned`] finds a block-aligned run in it.
    buf: Vec<u8>,
}

impl Direct {
    /// Opens `path` for direct writes after the log's `end`, reading back the committed bytes
    /// of the block `end` is in; `None` where direct writes cannot be made (not Linux, a file
    /// system that refuses them, room that does not end on a block boundary).
    fn open(path: &Path, file: &File, end: u64, room: u64) -> Option<Direct> {
        if !cfg!(target_os = "linux") || !room.is_multiple_of(BLOCK) {
            return None;
        }
        let direct = open_direct(path).ok()?;
        let mut tail = vec![0u8; (end % BLOCK) as usize];
        file.read_exact_at(&mut tail, end - end % BLOCK).ok()?;
        Some(Direct { file: direct, tail, buf: Vec::new() })
    }

    /// Writes `bytes` at `at` (the committed end) in whole blocks: the tail's bytes, then
    /// `bytes`, then zeros to the block's end (the room ahead is zeros already). Afterwards the
    /// tail is the committed part of the new last block.
    fn write(&mut self, bytes: &[u8], at: u64) -> io::Result<()> {
        let start = at - at % BLOCK;
        debug_assert_eq!(self.tail.len() as u64, at - start);
        let end = at + bytes.len() as u64;
        let len = (end.div_ceil(BLOCK) * BLOCK - start) as usize;
        let out = aligned(&mut self.buf, len);
        out[..self.tail.len()].copy_from_slice(&self.tail);
        out[self.tail.len()..self.tail.len() + bytes.len()].copy_from_slice(bytes);
        out[self.tail.len() + bytes.len()..].fill(0);
        self.file.write_all_at(out, start)?;
        let last = (end - end % BLOCK - start) as usize;
        self.tail.clear();
        self.tail.extend_from_slice(&out[last..last + (end % BLOCK) as usize]);
        Ok(())
    }
}

/// `len` bytes of `buf` that start on a block boundary in memory (direct writes need it),
/// found in a vector grown to hold them wherever its allocation starts.
fn aligned(buf: &mut Vec<u8>, len: usize) -> &mut [u8] {
    let block = BLOCK as usize;
    if buf.len() < len + block {
        *buf = vec![0u8; len + block];
    }
    let skip = (block - buf.as_ptr() as usize % block) % block;
    &mut buf[skip..skip + len]
}

#[cfg(target_os = "linux")]
fn open_direct(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    File::options().write(true).custom_flags(libc::O_DIRECT).open(path)
}

#[cfg(not(target_os = "linux"))]
fn open_direct(_: &Path) -> io::Result<File> {
    Err(io::ErrorKind::Unsupported.into())
}

/// A frame's checksum: its length, kind, number and bytes, from the checksum before it. The
/// one place writing and opening agree on what it covers.
fn checksum(chain: u32, len: [u8; 4], kind: u8, number: [u8; 8], bytes: &[u8]) -> u32 {
    let mut h = crc32fast::Hasher::new_with_initial(chain);
    h.update(&len);
    h.update(&[kind]);
    h.update(&number);
    h.update(bytes);
    h.finalize()
}

fn frame(out: &mut Vec<u8>, chain: u32, kind: u8, number: u64, bytes: &[u8]) -> u32 {
    let len = (bytes.len() as u32).to_le_bytes();
    let crc = checksum(chain, len, kind, number.to_le_bytes(), bytes);
    out.push(MARK);
    out.extend_from_slice(&len);
    out.extend_from_slice(&crc.to_le_bytes());
    out.push(kind);
    out.extend_from_slice(&number.to_le_bytes());
    out.extend_from_slice(bytes);
    crc
}

struct Header {
    len: usize,
    crc: u32,
    kind: u8,
    number: u64,
}

fn header(b: &[u8; HEADER]) -> Option<Header> {
    (b[0] == MARK).then(|| Header {
        len: u32::from_le_bytes(b[1..5].try_into().expect("four bytes")) as usize,
        crc: u32::from_le_bytes(b[5..9].try_into().expect("four bytes")),
        kind: b[9],
        number: u64::from_le_bytes(b[10..18].try_into().expect("eight bytes")),
    })
}

impl FileLog {
    /// Opens (creating it if missing) the log at `path`, handing `visit` each committed entry
    /// with its offset, in order. `sync`: whether each commit waits for the disk.
    pub fn open(path: &Path, sync: bool, visit: impl FnMut(u64, Entry)) -> io::Result<(FileLog, Opened)> {
        let existed = path.exists();
        let file = File::options().read(true).write(true).create(true).truncate(false).open(path)?;
        if !existed && sync {
            // A new file's name is only durable once its directory is synced.
            sync_dir(path)?;
        }
        let room = file.metadata()?.len();
        let scanned = scan(&file, room, visit)?;
        let cut = cut_after(path, &file, scanned.end, room)?;
        let mut log = FileLog::new(file, &scanned, room, sync, true);
        if sync {
            // What was read may still be only in the kernel's cache (a run without `sync`
            // before this one, or the cut just made): on the disk before a batch follows it.
            log.file.sync_data()?;
            log.synced = scanned.end;
            log.direct = Direct::open(path, &log.file, scanned.end, room);
        }
        Ok((log, Opened { entries: scanned.entries, batches: scanned.batches, cut }))
    }

    /// Opens the log at `path` for reading only (a read-only disk, or another process's log):
    /// committed entries are handed to `visit` as by [`FileLog::open`], but nothing after them
    /// is cut or changed (it may be a batch another process is writing), `cut` is 0, and every
    /// commit is refused with [`CommitError::ReadOnly`].
    pub fn open_read_only(path: &Path, visit: impl FnMut(u64, Entry)) -> io::Result<(FileLog, Opened)> {
        let file = File::open(path)?;
        let room = file.metadata()?.len();
        let scanned = scan(&file, room, visit)?;
        let log = FileLog::new(file, &scanned, room, false, false);
        Ok((log, Opened { entries: scanned.entries, batches: scanned.batches, cut: 0 }))
    }

    fn new(file: File, scanned: &Scanned, room: u64, sync: bool, writable: bool) -> FileLog {
        FileLog {
            file: Arc::new(file),
            end: Arc::new(AtomicU64::new(scanned.end)),
            chain: scanned.chain,
            room,
            growing: None,
            sync,
            writable,
            failed: false,
            synced: 0,
            scratch: Vec::new(),
            direct: None,
        }
    }

    /// Whether synced commits are written past the page cache (see the module's notes).
    pub fn direct(&self) -> bool {
        self.direct.is_some()
    }

    /// Writes `batch` after the last committed one, and (when opened with `sync`) waits for it
    /// to be on the disk. On success readers see it, and the answer is where it starts (see
    /// [`Batch::offsets`]); on failure nothing of it counts, and no later batch is taken until
    /// the log is opened again.
    pub fn commit(&mut self, batch: &Batch) -> Result<u64, CommitError> {
        if !self.writable {
            return Err(CommitError::ReadOnly);
        }
        if self.failed {
            return Err(CommitError::Failed);
        }
        self.scratch.clear();
        let mut chain = self.chain;
        let mut start = 0;
        for &(kind, number, stop) in &batch.entries {
            chain = frame(&mut self.scratch, chain, kind, number, &batch.data[start..stop]);
            start = stop;
        }
        chain = frame(&mut self.scratch, chain, COMMIT, batch.entries.len() as u64, &[]);
        let at = self.end.load(Ordering::Relaxed);
        let written = self.make_room(at + self.scratch.len() as u64).and_then(|()| {
            match &mut self.direct {
                Some(direct) => direct.write(&self.scratch, at)?,
                None => self.file.write_all_at(&self.scratch, at)?,
            }
            if self.sync {
                self.file.sync_data()?;
            }
            Ok(())
        });
        if let Err(e) = written {
            self.failed = true;
            self.settle();
            return Err(CommitError::Io(e));
        }
        self.chain = chain;
        let end = at + self.scratch.len() as u64;
        if self.sync {
            self.synced = end;
        }
        self.end.store(end, Ordering::Release);
        self.grow_ahead(end);
        Ok(at)
    }

    /// Grows the room ahead to hold `upto`: the room a thread of its own has written, else
    /// zeros written here a chunk at a time, synced with the file's new length when commits
    /// are synced.
    fn make_room(&mut self, upto: u64) -> io::Result<()> {
        self.reap(false);
        if upto <= self.room {
            return Ok(());
        }
        self.reap(true);
        if upto <= self.room {
            return Ok(());
        }
        let grown = upto.div_ceil(CHUNK) * CHUNK;
        zeros(&self.file, self.room, grown, self.sync)?;
        self.room = grown;
        Ok(())
    }

    /// Once less than half a chunk of room is left after `end`, writes the next chunk on a
    /// thread of its own: writing and syncing 4 MiB takes tens of milliseconds on a disk where
    /// a batch takes a tenth of one, and no batch should wait for it. The thread writes only
    /// past the room, where no batch goes until it has finished.
    fn grow_ahead(&mut self, end: u64) {
        if self.growing.is_some() || self.room.saturating_sub(end) >= CHUNK / 2 {
            return;
        }
        let (file, from, sync) = (self.file.clone(), self.room, self.sync);
        let to = from + CHUNK;
        let grow = move || zeros(&file, from, to, sync).map(|()| to);
        // Without a thread, the room is grown when a batch needs it, as before.
        self.growing = std::thread::Builder::new().name("filelog-room".into()).spawn(grow).ok();
    }

    /// Takes the room the thread wrote ahead, if it has finished (or, with `wait`, once it
    /// has). A thread that failed leaves the room as it was: it is grown again when needed.
    fn reap(&mut self, wait: bool) {
        if self.growing.as_ref().is_some_and(|h| wait || h.is_finished()) {
            if let Some(Ok(Ok(to))) = self.growing.take().map(|h| h.join()) {
                self.room = self.room.max(to);
            }
        }
    }

    /// Waits for room being written ahead, if any. Before this log's file is opened again
    /// (after a failed or refused commit), so that no thread of this one writes in it then;
    /// a failed commit and dropping the log do it themselves.
    pub fn settle(&mut self) {
        self.reap(true);
    }

    /// Where the committed batches known to be on the disk end: [`FileLog::end`] after every
    /// commit when commits are synced, otherwise where it was at the last [`FileLog::sync`].
    pub fn synced(&self) -> u64 {
        self.synced
    }

    /// Waits for every committed batch to be on the disk. For a log whose commits are not
    /// synced, before something stored elsewhere comes to depend on them (a snapshot that
    /// covers them); otherwise there is nothing to wait for.
    /// After a failed commit what reached the disk is unknown: an error, as for a commit.
    pub fn sync(&mut self) -> io::Result<()> {
        let end = self.end();
        if self.synced >= end {
            return Ok(());
        }
        if self.failed {
            return Err(io::Error::other("an earlier write to the log's file failed; it must be opened again"));
        }
        self.file.sync_data()?;
        self.synced = end;
        Ok(())
    }

    /// Where the next batch goes: the bytes committed so far.
    pub fn end(&self) -> u64 {
        self.end.load(Ordering::Relaxed)
    }

    /// The file's length: committed bytes and the room ahead.
    pub fn file_len(&self) -> u64 {
        self.room
    }

    /// A reader of the committed entries, for any thread.
    pub fn reader(&self) -> Reader {
        Reader { file: self.file.clone(), end: self.end.clone() }
    }
}

/// Where a scan of a log's frames from its start ended.
struct Scanned {
    /// The end of the last committed batch, and the checksum of its commit frame.
    end: u64,
    chain: u32,
    entries: u64,
    batches: u64,
}

/// Reads every frame of `file` (of length `room`) from the start, handing `visit` each entry of
/// each committed batch, up to the first frame that does not check out.
fn scan(file: &File, room: u64, mut visit: impl FnMut(u64, Entry)) -> io::Result<Scanned> {
    let mut reader = io::BufReader::with_capacity(1 << 20, file);
    let (mut pos, mut chain) = (0u64, 0u32);
    let mut done = Scanned { end: 0, chain: 0, entries: 0, batches: 0 };
    let mut pending: Vec<(u64, Entry)> = Vec::new();
    loop {
        use io::Read;
        let mut hb = [0u8; HEADER];
        if pos + HEADER as u64 > room || reader.read_exact(&mut hb).is_err() {
            break;
        }
        let Some(h) = header(&hb) else { break };
        if pos + (HEADER + h.len) as u64 > room {
            break;
        }
        let mut bytes = vec![0u8; h.len];
        if reader.read_exact(&mut bytes).is_err() {
            break;
        }
        if checksum(chain, (h.len as u32).to_le_bytes(), h.kind, h.number.to_le_bytes(), &bytes) != h.crc {
            break;
        }
        let at = pos;
        pos += (HEADER + h.len) as u64;
        chain = h.crc;
        if h.kind != COMMIT {
            pending.push((at, Entry { kind: h.kind, number: h.number, bytes }));
            continue;
        }
        if h.number != pending.len() as u64 || !bytes.is_empty() {
            break;
        }
        done.entries += pending.len() as u64;
        done.batches += 1;
        for (at, e) in pending.drain(..) {
            visit(at, e);
        }
        done.end = pos;
        done.chain = chain;
    }
    Ok(done)
}

impl Drop for FileLog {
    fn drop(&mut self) {
        self.settle();
    }
}

/// Writes zeros over `from..to` of `file`, synced with the file's length when `sync`.
fn zeros(file: &File, from: u64, to: u64, sync: bool) -> io::Result<()> {
    let zeros = vec![0u8; 1 << 20];
    let mut at = from;
    while at < to {
        let n = (to - at).min(zeros.len() as u64) as usize;
        file.write_all_at(&zeros[..n], at)?;
        at += n as u64;
    }
    if sync {
        file.sync_all()?;
    }
    Ok(())
}

/// Copies the bytes in `from..len` up to the last that is not zero to `<path>.cut-<from>`,
/// writes zeros over them, and says how many that was.
fn cut_after(path: &Path, file: &File, from: u64, len: u64) -> io::Result<u64> {
    let mut buf = vec![0u8; 1 << 20];
    let mut last = None;
    let mut at = from;
    while at < len {
        let n = (len - at).min(buf.len() as u64) as usize;
        file.read_exact_at(&mut buf[..n], at)?;
        if let Some(i) = buf[..n].iter().rposition(|&b| b != 0) {
            last = Some(at + i as u64);
        }
        at += n as u64;
    }
    let Some(last) = last else { return Ok(0) };
    let cut = last + 1 - from;
    let mut bytes = vec![0u8; cut as usize];
    file.read_exact_at(&mut bytes, from)?;
    // A name no earlier cut has: the same offset may be cut again after a later crash.
    let kept = (0u32..)
        .map(|n| {
            let mut p = path.as_os_str().to_owned();
            p.push(if n == 0 { format!(".cut-{from}") } else { format!(".cut-{from}.{n}") });
            std::path::PathBuf::from(p)
        })
        .find(|p| !p.exists())
        .expect("some name is free");
    let mut out = File::options().write(true).create_new(true).open(&kept)?;
    io::Write::write_all(&mut out, &bytes)?;
    out.sync_all()?;
    sync_dir(&kept)?;
    buf.fill(0);
    let mut at = from;
    while at <= last {
        let n = (last + 1 - at).min(buf.len() as u64) as usize;
        file.write_all_at(&buf[..n], at)?;
        at += n as u64;
    }
    Ok(cut)
}

/// Syncs the directory `path` is in, so that a file made, renamed or removed there stays so
/// after a power loss.
pub fn sync_dir(path: &Path) -> io::Result<()> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    File::open(dir)?.sync_all()
}

/// Reads committed entries, from any thread.
#[derive(Clone)]
pub struct Reader {
    file: Arc<File>,
    end: Arc<AtomicU64>,
}

impl Reader {
    /// The first entry at or after `offset` (an offset opening or an earlier read gave): its own
    /// offset, the entry, and the offset after it; `None` at the committed end.
    pub fn next_entry(&self, mut offset: u64) -> io::Result<Option<(u64, Entry, u64)>> {
        let end = self.end.load(Ordering::Acquire);
        while offset + HEADER as u64 <= end {
            let mut hb = [0u8; HEADER];
            self.file.read_exact_at(&mut hb, offset)?;
            let h = header(&hb).ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, "no frame at this offset"))?;
            let next = offset + (HEADER + h.len) as u64;
            if next > end {
                return Err(io::Error::new(io::ErrorKind::InvalidData, "a frame runs past the committed end"));
            }
            if h.kind == COMMIT {
                offset = next;
                continue;
            }
            let mut bytes = vec![0u8; h.len];
            self.file.read_exact_at(&mut bytes, offset + HEADER as u64)?;
            return Ok(Some((offset, Entry { kind: h.kind, number: h.number, bytes }, next)));
        }
        Ok(None)
    }

    /// The committed end.
    pub fn end(&self) -> u64 {
        self.end.load(Ordering::Acquire)
    }
}

#[cfg(test)]
mod tests;
