// The delegation cycle as a Restate service (issue 26 item 2), for bench/peers/run.mjs: one
// virtual object per parent thread, keyed by its id, written as Restate's documentation writes
// a stateful entity. Its two exclusive handlers keep the cycle's facts in the object's state
// (journaled, and committed to Restate's log before the ingress answers); the shared handler
// reads them back.
//   start    the parent thread opened and the handoff created
//   finish   the child's activity, its answer, its report to the parent, the parent's turn end
//   outcome  the handoff's outcome read back
// Run: PORT=9080 node bench/peers/restate.mjs (registered with the server by run.mjs).
import * as restate from "@restatedev/restate-sdk";

const thread = restate.object({
  name: "thread",
  handlers: {
    start: async (ctx) => {
      ctx.set("opened", true);
      ctx.set("handoff", { task: "Review the model", target: "adam", status: "running" });
      return { parent: ctx.key };
    },
    finish: async (ctx) => {
      const handoff = await ctx.get("handoff");
      ctx.set("activity", { tool: "web_search" });
      ctx.set("response", "Two risks remain.");
      ctx.set("report", { to: ctx.key, body: "Done: two risks remain." });
      ctx.set("handoff", { ...handoff, status: "completed" });
      ctx.set("turn_ended", true);
      return { status: "completed" };
    },
    outcome: restate.handlers.object.shared(async (ctx) => {
      const handoff = await ctx.get("handoff");
      const report = await ctx.get("report");
      return { status: handoff.status, report: report.body };
    }),
  },
});

restate.endpoint().bind(thread).listen(Number(process.env.PORT ?? 9080));
