// The host driver (`baton-engine/host`) runs the coordination effects too, on scripted runners:
// a leg as a turn of its own on the leg's thread whose report answers the parent's live turn
// (A1, A3), a background group's follow-up task after the starting task ended (A5), a schedule
// when it comes due on the host's clock (A6), and a question the model asked the user: the run
// ends, the answers come from `onQuestion`, and the run resumes with them (A8).
import test from "node:test";
import assert from "node:assert/strict";
import { Baton } from "../../pkg/node.js";
import { Host } from "../../pkg/host-node.js";

const T0 = Date.parse("2026-01-05T09:00:00Z");
const tool = (turn, name) => turn.tools.find((t) => t.name === name);

/** A Baton and a driver on a clock the test moves. */
async function setup(seed, hostOptions = {}) {
  const baton = new Baton(seed);
  const clock = { now: T0 };
  const host = new Host(baton, { now: () => clock.now, ...hostOptions });
  await host.host("configure", { cores: 4, models: ["gpt-mini"], auto_model: "gpt-mini" });
  return { baton, clock, host };
}

test("A1/A3: a leg runs as a turn on its own thread, and its report reaches the parent's live turn", async () => {
  const { host } = await setup(21);
  const legs = [];
  await host.agent("lead", {
    tools: ["ask_user"],
    run: async (turn) => {
      if (turn.kind === "leg") {
        legs.push({ thread: turn.threadId, input: turn.input });
        return "NVDA rose 4% on the earnings call.";
      }
      const leg = await tool(turn, "subagents").execute({ mode: "invoke", task: "Collect the NVDA headlines.", model: "gpt-mini", report_name: "nvda" });
      assert.equal(leg.ok, true, JSON.stringify(leg));
      const result = await turn.steering.next();
      return `Research back: ${result}`;
    },
  });
  const main = await host.open("lead", { thread_id: "chat_main" });
  const answer = await host.send(main, "What happened to NVDA?");
  await host.idle();
  assert.equal(legs.length, 1);
  assert.notEqual(legs[0].thread, main, "the leg has a thread of its own (it sees none of the parent conversation)");
  assert.equal(legs[0].input, "Collect the NVDA headlines.");
  assert.match(answer, /^Research back: \[subagent · gpt-mini · session=/, "the A3 header");
  assert.match(answer, /temp-nvda\.md/, "and the report path");
  host.close();
});

test("A5: a background group's legs finish after the starting task ended; the driver opens the follow-up task", async () => {
  const { baton, host } = await setup(22);
  let release;
  const leadEnded = new Promise((r) => (release = r));
  const followUps = [];
  await host.agent("lead", {
    run: async (turn) => {
      if (turn.kind === "leg") {
        await leadEnded;
        return "Competitors raised prices 5%.";
      }
      if (turn.kind === "follow_up_task") {
        followUps.push(turn.input);
        return "Drafted the email.";
      }
      const bg = await tool(turn, "background_subagents").execute({ task: "Scan competitor pricing.", model: "gpt-mini", report_name: "pricing", objective: "Decide our Q1 price change", next: "Draft an email to the pricing committee" });
      assert.ok(bg.task_id, JSON.stringify(bg));
      return "Started the scan.";
    },
  });
  const main = await host.open("lead", { thread_id: "chat_main" });
  assert.equal(await host.send(main, "Plan the price change"), "Started the scan.");
  release();
  await host.idle();
  assert.equal(followUps.length, 1);
  assert.match(followUps[0], /Decide our Q1 price change/);
  assert.match(followUps[0], /Draft an email to the pricing committee/);
  assert.equal(baton.host("get_thread", { thread_id: main }).activity.last_response, "Drafted the email.");
  host.close();
});

test("A6: a schedule runs its skill as a turn when it comes due on the host's clock", async () => {
  const { host, clock } = await setup(23);
  const runs = [];
  await host.agent("lead", {
    run: async (turn) => {
      if (turn.kind === "schedule") {
        runs.push(turn.effect.skill_name);
        return "Digest sent.";
      }
      const w = await tool(turn, "schedules").execute({ mode: "write", target: "task", skill_name: turn.input, time: "+5m" });
      assert.equal(w.error, undefined, JSON.stringify(w));
      return "Scheduled.";
    },
  });
  const { skill_name } = await host.host("create_skill", { base_name: "Daily Digest" });
  const main = await host.open("lead", { thread_id: "chat_main" });
  await host.send(main, skill_name);
  await host.idle();
  assert.deepEqual(runs, [], "not due yet");
  clock.now += 5 * 60_000;
  await host.idle();
  assert.deepEqual(runs, [skill_name]);
  host.close();
});

test("A8: ask_user ends the run, onQuestion answers, and the run resumes with the answers", async () => {
  const asked = [];
  const { baton, host } = await setup(24, {
    onQuestion: async (q) => {
      asked.push(q);
      return ["eu-west-1"];
    },
  });
  const turns = [];
  await host.agent("lead", {
    tools: ["ask_user"],
    run: async (turn) => {
      turns.push(turn.kind);
      if (turn.kind === "resume") return `Deploying: ${turn.input.split("\n").at(-1)}`;
      const r = await tool(turn, "ask_user").execute({ questions: [{ question: "Which region?", kind: "single_select", options: ["eu-west-1", "us-east-2"] }] });
      assert.equal(r.status, "pending", JSON.stringify(r));
      // the driver stops the run for the question: a model would stop here
      assert.equal(turn.signal.aborted, true);
      throw turn.signal.reason;
    },
  });
  const main = await host.open("lead", { thread_id: "chat_main" });
  await host.send(main, "Deploy the service");
  await host.idle();
  assert.equal(asked.length, 1);
  assert.deepEqual([asked[0].inline, asked[0].questions[0].question], [false, "Which region?"]);
  assert.deepEqual(turns, ["user", "resume"]);
  assert.equal(baton.host("get_thread", { thread_id: main }).activity.last_response, "Deploying: 1. eu-west-1");
  assert.equal(baton.host("in_flight", {}).turns.length, 0, "the stopped run ended as a turn, not as an error");
  host.close();
});

test("A8 at an interactive terminal: the question is asked inline and the answers reach the same live run", async () => {
  const { host } = await setup(25, { onQuestion: async (q) => (q.inline ? ["yes"] : undefined) });
  const turns = [];
  await host.agent("lead", {
    tools: ["ask_user"],
    run: async (turn) => {
      turns.push(turn.kind);
      const r = await tool(turn, "ask_user").execute({ questions: [{ question: "Ship it?", kind: "text" }] });
      assert.equal(r.status, "asked_inline", JSON.stringify(r));
      return `Answer in the same run: ${await turn.steering.next()}`;
    },
  });
  const main = await host.open("lead", { thread_id: "chat_main", interactive: true });
  const answer = await host.send(main, "Release?");
  await host.idle();
  assert.match(answer, /^Answer in the same run: The user answered question question_\S+:\n1\. yes$/);
  assert.deepEqual(turns, ["user"], "no second run");
  host.close();
});
