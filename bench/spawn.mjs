// What every bench that starts servers shares: each process it starts goes when the bench
// does, however the bench ends, and a server counts as started once it has printed the whole
// line saying where it listens ("listening on http://…", as `baton serve`, the A2A server and
// the peers print it).
import { spawn } from "node:child_process";

const children = new Set();
process.on("exit", () => {
  for (const c of children) c.kill("SIGKILL");
});

/** Kills `p` with the bench, if it is still running then; returns `p`. */
export function owned(p) {
  children.add(p);
  p.on("exit", () => children.delete(p));
  return p;
}

/**
 * Starts `cmd args` with `env` added to the bench's own, and resolves `{ p, url }` once it
 * prints where it listens; rejects with the end of its output if it exits before. Its stderr
 * is kept for that message, or passed through with `{ stderr: "inherit" }`.
 */
export function startServer(name, cmd, args, env = {}, { stderr = "pipe" } = {}) {
  return new Promise((resolve, reject) => {
    const p = owned(spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", stderr] }));
    let out = "";
    let served = false;
    const look = (d) => {
      if (served) return;
      out += d;
      const m = out.match(/listening on (http:\/\/[\d.:]+[^\s]*)\s/);
      if (m) {
        served = true;
        resolve({ p, url: m[1] });
      }
    };
    p.stdout.on("data", look);
    p.stderr?.on("data", (d) => served || (out += d));
    p.on("exit", (c, signal) => {
      if (!served) reject(new Error(`${name} exited (${c ?? signal}) before it served:\n${out.slice(-2000)}`));
    });
  });
}

/** Kills every process the bench started and still runs (before its directory goes). */
export function killAll() {
  for (const c of children) c.kill("SIGKILL");
}
