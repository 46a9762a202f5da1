// The closed loop the HTTP benches share (bench/serve.mjs, bench/peers/run.mjs): `clients`
// loops, each running `cycle` again as soon as it ends, for 1 s of warm-up and then `seconds`.

/** How many cycles `clients` loops complete in `ms`. */
async function loops(cycle, clients, ms) {
  const end = Date.now() + ms;
  let n = 0;
  await Promise.all(Array.from({ length: clients }, async () => { while (Date.now() < end) { await cycle(); n++; } }));
  return n;
}

/** Cycles per second over `seconds` after a 1 s warm-up, the cycles counted (`n`), and what
 * `mark()` returned as the timed part began (`marked`: a reading to compare with one after). */
export async function closedLoop(cycle, clients, seconds, mark = () => undefined) {
  await loops(cycle, clients, 1000);
  const t = process.hrtime.bigint();
  const marked = mark();
  const n = await loops(cycle, clients, seconds * 1000);
  return { rate: n / (Number(process.hrtime.bigint() - t) / 1e9), n, marked };
}
