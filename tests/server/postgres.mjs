// A throwaway PostgreSQL server for the tests: Debian's binaries (scripts/setup.sh installs the
// `postgresql` package when they are missing), `initdb` in a temporary directory, loopback
// only, on a free port; `stop()` ends it and removes the directory. PostgreSQL refuses to run
// as root: as root, the server runs as the `postgres` user the package creates, in a directory
// under /tmp it can reach.
import { spawn, execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import { join } from "node:path";

function pgBin() {
  const base = "/usr/lib/postgresql";
  const versions = fs.existsSync(base) ? fs.readdirSync(base).sort((a, b) => Number(b) - Number(a)) : [];
  for (const v of versions) {
    const bin = join(base, v, "bin");
    if (fs.existsSync(join(bin, "initdb"))) return bin;
  }
  throw new Error("PostgreSQL's initdb was not found under /usr/lib/postgresql (apt-get install postgresql)");
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Starts PostgreSQL; resolves to { url, stop }. */
export async function startPostgres() {
  const bin = pgBin();
  const root = process.getuid?.() === 0;
  const dir = fs.mkdtempSync(join(root ? "/tmp" : os.tmpdir(), "baton-pg-"));
  const data = join(dir, "data");
  // As root: the processes run as the postgres user (uid and gid given to spawn, so signals
  // reach postgres itself).
  const user = root
    ? { uid: Number(execFileSync("id", ["-u", "postgres"])), gid: Number(execFileSync("id", ["-g", "postgres"])) }
    : {};
  if (root) fs.chownSync(dir, user.uid, user.gid);
  execFileSync(join(bin, "initdb"), ["-D", data, "-U", "baton", "-A", "trust", "-E", "UTF8", "--no-sync"], { stdio: "pipe", cwd: dir, ...user });
  const port = await freePort();
  const args = ["-D", data, "-p", String(port), "-k", dir,
    "-c", "listen_addresses=127.0.0.1", "-c", "max_connections=200", "-c", "logging_collector=off"];
  const p = spawn(join(bin, "postgres"), args, { stdio: ["ignore", "ignore", "pipe"], cwd: dir, ...user });
  let log = "";
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`postgres did not start in 30 s: ${log}`)), 30000);
    p.stderr.on("data", (d) => {
      log += d;
      if (/ready to accept connections/.test(log)) {
        clearTimeout(timer);
        resolve();
      }
    });
    p.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`postgres exited (${code}): ${log}`));
    });
  });
  p.removeAllListeners("exit");
  const url = `postgres://baton@127.0.0.1:${port}/postgres`;
  let stopped = false;
  return {
    url,
    port,
    /** One SQL statement's rows, through psql: each row's columns joined by "|". */
    query(sql) {
      const out = execFileSync(join(bin, "psql"), ["-h", "127.0.0.1", "-p", String(port), "-U", "baton", "-d", "postgres", "-tAc", sql], { encoding: "utf8" });
      return out.split("\n").filter((l) => l !== "");
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await new Promise((resolve) => {
        if (p.exitCode !== null) return resolve();
        p.once("exit", resolve);
        p.kill("SIGINT"); // fast shutdown
      });
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
