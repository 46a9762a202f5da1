// A durable store for Node hosts: one directory per workspace.
//
//   meta.json       {"format": "baton-file-store", "version": 1, "seed": N} — written once
//   snapshot.jsonl  the latest snapshot (the engine's snapshot lines), replaced atomically:
//                   written to snapshot.jsonl.tmp, fsynced, renamed over, directory fsynced
//   log.jsonl       the records after that snapshot, one JSON line each, appended
//   lock            the process id of the one process that has the store open
//
// One writer: opening takes `lock` (created exclusively); a second process opening the same
// directory is refused while the first lives. A lock left by a process that died (kill -9) is
// taken over.
//
// Durability (`fsync`): "always" (the default) fsyncs log.jsonl after every record, before the
// command is acknowledged — an acknowledged command survives a process crash, an OS crash and
// a power loss. "never" leaves flushing to the OS — an acknowledged command survives a crash
// of the process (the bytes are in the OS's cache) but not of the machine. Snapshots are
// always fsynced.
//
// Crash safety: a record is one line, written at the end of the log. A crash can leave the
// last line torn (no final newline); opening detects it, drops it (it was never acknowledged)
// and cuts the file back to the last whole line, so a torn record is never half applied. A
// whole line that does not read is damage, not a crash: opening refuses it. A crash between
// the snapshot's rename and the log's truncation leaves records the snapshot already holds;
// the engine skips them. A failed append cuts the file back to where it was and throws, so the
// engine refuses the command and changes nothing.
import * as fs from "node:fs";
import * as path from "node:path";

const FORMAT = "baton-file-store";
const VERSION = 1;

function fsyncDir(dir) {
  let fd;
  try {
    fd = fs.openSync(dir, "r");
    fs.fsyncSync(fd);
  } catch {
    // Some platforms cannot fsync a directory; the rename is still atomic.
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** Takes `dir/lock` for this process, or throws while another live process holds it. */
function takeLock(dir) {
  const lockPath = path.join(dir, "lock");
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = fs.openSync(lockPath, "wx");
      fs.writeSync(fd, String(process.pid));
      fs.closeSync(fd);
      return lockPath;
    } catch (e) {
      if (e.code !== "EEXIST") throw e;
      const holder = Number(fs.readFileSync(lockPath, "utf8")) || 0;
      if (holder > 0 && holder !== process.pid && alive(holder)) {
        throw new Error(`${dir}: the store is open in process ${holder}; one process writes a store at a time`);
      }
      if (holder === process.pid) {
        throw new Error(`${dir}: the store is already open in this process; close it first`);
      }
      fs.rmSync(lockPath, { force: true }); // left by a process that died
    }
  }
  throw new Error(`${dir}: could not take the store's lock`);
}

/** The store's meta.json, written (atomically) with `seed` when the store is new. */
function readOrCreateMeta(dir, seed) {
  const metaPath = path.join(dir, "meta.json");
  let meta;
  if (fs.existsSync(metaPath)) {
    meta = JSON.parse(fs.readFileSync(metaPath, "utf8"));
    if (meta.format !== FORMAT || meta.version !== VERSION) {
      throw new Error(`${metaPath}: not a ${FORMAT} version ${VERSION} (${meta.format} ${meta.version})`);
    }
  } else {
    meta = { format: FORMAT, version: VERSION, seed: seed ?? Math.floor(Math.random() * 2 ** 52) };
    const tmp = metaPath + ".tmp";
    fs.writeFileSync(tmp, JSON.stringify(meta) + "\n");
    const fd = fs.openSync(tmp, "r");
    fs.fsyncSync(fd);
    fs.closeSync(fd);
    fs.renameSync(tmp, metaPath);
    fsyncDir(dir);
  }
  return meta;
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === "EPERM";
  }
}

export class FileStore {
  /** Opens (creating if needed) the store in `dir`. `seed` is used for a new store only. */
  static open(dir, { seed, fsync = "always", snapshotEvery } = {}) {
    if (fsync !== "always" && fsync !== "never") {
      throw new TypeError(`fsync: "always" or "never", not ${JSON.stringify(fsync)}`);
    }
    fs.mkdirSync(dir, { recursive: true });
    const lockPath = takeLock(dir);
    try {
      const meta = readOrCreateMeta(dir, seed);
      return new this(dir, meta, { fsync, snapshotEvery, lockPath });
    } catch (e) {
      fs.rmSync(lockPath, { force: true });
      throw e;
    }
  }

  constructor(dir, meta, { fsync, snapshotEvery, lockPath }) {
    this.dir = dir;
    this.lockPath = lockPath;
    this.seed = meta.seed;
    this.fsync = fsync;
    if (snapshotEvery !== undefined) this.snapshotEvery = snapshotEvery;
    this.logPath = path.join(dir, "log.jsonl");
    this.snapshotPath = path.join(dir, "snapshot.jsonl");
    /** What opening found: a torn last line dropped (its byte length), if any. */
    this.recovered = { tornBytes: 0 };
    this.fd = fs.openSync(this.logPath, fs.existsSync(this.logPath) ? "r+" : "w+");
    this.size = fs.fstatSync(this.fd).size;
  }

  /** The latest snapshot's lines, then every whole record after it. */
  load() {
    const lines = [];
    if (fs.existsSync(this.snapshotPath)) {
      for (const l of fs.readFileSync(this.snapshotPath, "utf8").split("\n")) if (l) lines.push(l);
    }
    const buf = Buffer.alloc(this.size);
    if (this.size > 0) fs.readSync(this.fd, buf, 0, this.size, 0);
    const end = buf.lastIndexOf(0x0a) + 1; // after the last newline: the whole lines
    if (end < this.size) {
      // A torn last record (a crash mid-write): never acknowledged; cut it off.
      this.recovered.tornBytes = this.size - end;
      fs.ftruncateSync(this.fd, end);
      fs.fsyncSync(this.fd);
      this.size = end;
    }
    for (const l of buf.subarray(0, end).toString("utf8").split("\n")) if (l) lines.push(l);
    return lines;
  }

  /** Stores one record line durably (per the fsync policy), or throws with nothing stored. */
  append(line) {
    const buf = Buffer.from(line + "\n", "utf8");
    try {
      this.writeAt(buf, this.size);
      if (this.fsync === "always") fs.fsyncSync(this.fd);
    } catch (e) {
      try {
        fs.ftruncateSync(this.fd, this.size);
      } catch {
        // The next open drops a torn tail anyway.
      }
      throw e;
    }
    this.size += buf.length;
  }

  /** Writes `buf` at `position` (all of it). */
  writeAt(buf, position) {
    let off = 0;
    while (off < buf.length) off += fs.writeSync(this.fd, buf, off, buf.length - off, position + off);
  }

  /** Replaces the snapshot atomically, then starts the log afresh (its records are in it). */
  snapshot(text, _seq) {
    const tmp = this.snapshotPath + ".tmp";
    const fd = fs.openSync(tmp, "w");
    try {
      const buf = Buffer.from(text, "utf8");
      let off = 0;
      while (off < buf.length) off += fs.writeSync(fd, buf, off, buf.length - off, off);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, this.snapshotPath);
    fsyncDir(this.dir);
    // A crash before this line leaves records the snapshot holds: skipped on open.
    fs.ftruncateSync(this.fd, 0);
    fs.fsyncSync(this.fd);
    this.size = 0;
  }

  /** Closes the log file and lets the store go (another process may open it). */
  close() {
    if (this.fd !== undefined) fs.closeSync(this.fd);
    this.fd = undefined;
    if (this.lockPath) fs.rmSync(this.lockPath, { force: true });
    this.lockPath = undefined;
  }
}
