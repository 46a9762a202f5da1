"""baton.Host, the host driver on asyncio, against a real `baton serve`, on scripted turns: the
delegation (a watched child answering a synchronous handoff, G9; a notify child whose report
wakes the lead with its mail, M5) with a restarted host handed nothing twice; a follow-up
steering a live turn (H1); a cancelled child's run cancelled (C1); a leg as a turn of its own
(A1, A3); a background group's follow-up task (A5); a question ending the run and resuming it
with the answers, or answered inline (A8)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from baton import AsyncClient, Client, Host, LocalServer, Question, Turn


def tool(turn: Turn, name: str) -> Any:
    return next(t for t in turn.tools if t.name == name).execute


def test_g9_m5_delegation_and_a_restarted_host_on_its_cursor(server: LocalServer, workspace: tuple[str, str], tmp_path: Path) -> None:
    cursor = tmp_path / "effects.cursor"
    woken: list[list[str]] = []

    async def lead(turn: Turn) -> str:
        if turn.kind == "wake":
            assert turn.effect is not None and turn.effect["effect"] == "wake"
            woken.append([m["body"] for m in turn.effect["messages"]])
            return "Read it."
        await tool(turn, "handoff")({"task": "List the risks", "target_bot": "adam"})
        b = await tool(turn, "handoff")({"task": "Check the data", "target_bot": "eve", "async_mode": False})
        assert b["watch"]["result"] == "The data is clean.", b
        return "Delegated."

    async def adam(turn: Turn) -> str:
        assert turn.effect is not None and turn.effect["effect"] == "start_child"
        r = turn.effect["report_to"]
        await tool(turn, "mailbox_action")(
            {"action": "SEND_MESSAGE", "to_thread_id": r["to_thread_id"], "to_bot_id": r["to_bot_id"], "body": "Risks: cache"}
        )
        return "Reported."

    async def eve(turn: Turn) -> str:
        return "The data is clean."

    async def go() -> list[str]:
        async with AsyncClient(server.url, *workspace) as client:
            async with Host(client, cursor=cursor) as host:
                await host.agent("lead", lead)
                await host.agent("adam", adam)
                await host.agent("eve", eve)
                chat = await host.open("lead", thread_id="chat_main")
                assert await host.send(chat, "Plan the release") == "Delegated."
                await host.idle()
            again: list[str] = []
            async with Host(client, cursor=cursor, on_effect=lambda e: again.append(e["effect"])) as host2:
                await host2.idle()
            return again

    assert asyncio.run(go()) == [], "a restarted host on the same cursor is handed nothing it had"
    assert woken == [["Risks: cache"]]
    with Client(server.url, *workspace) as client:
        assert client.call("handoff_list", {}, {"thread": "chat_main", "bot": "lead"})["handoffs"] == []
        last = client.effects(limit=10000)["effects"][-1]["seq"]
        assert int(cursor.read_text()) == last, "the cursor is the last effect handed over"


def test_h1_c1_a_follow_up_steers_a_live_turn_and_a_cancel_stops_a_run(server: LocalServer, workspace: tuple[str, str]) -> None:
    steered: list[str] = []
    stopped: list[bool] = []
    started = asyncio.Event

    async def go() -> None:
        adam_live, zed_live = started(), started()

        async def adam(turn: Turn) -> str:
            adam_live.set()
            steered.append(await turn.steering.next())
            return "Done, with the backup job."

        async def zed(turn: Turn) -> str:
            zed_live.set()
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                stopped.append(turn.cancelled.is_set())
                raise
            return "never"

        async with AsyncClient(server.url, *workspace) as client, Host(client) as host:
            await host.agent("lead", lambda turn: asyncio.sleep(0, "ok"))
            await host.agent("adam", adam)
            await host.agent("zed", zed, on_cancel="abort")
            chat = await host.open("lead", thread_id="chat_main")
            me = {"thread": chat, "bot": "lead"}
            a = await client.call("handoff", {"task": "Risks", "target_bot": "adam", "on_completion": "return"}, me)
            z = await client.call("handoff", {"task": "Benchmark", "target_bot": "zed"}, me)
            await asyncio.wait_for(asyncio.gather(adam_live.wait(), zed_live.wait()), 10)
            await client.call("handoff_send", {"handoff_id": a["handoff_id"], "message": "Include the backup job"}, me)
            await client.call("handoff_cancel", {"handoff_id": z["handoff_id"], "reason": "not needed"}, me)
            await host.idle()
            assert (await client.call("handoff_results", {"handoff_id": z["handoff_id"]}, me))["status"] == "cancelled"
            done = await client.call("handoff_results", {"handoff_id": a["handoff_id"]}, me)
            assert done["result"] == "Done, with the backup job."

    asyncio.run(go())
    assert steered == ["Include the backup job"], "the follow-up reached adam's live turn"
    assert stopped == [True], "zed's run was cancelled by the driver"


async def coordination(server: LocalServer, workspace: tuple[str, str], **options: Any) -> tuple[AsyncClient, Host]:
    client = AsyncClient(server.url, *workspace)
    host = Host(client, **options)
    await client.host("configure", {"cores": 4, "models": ["gpt-mini"], "auto_model": "gpt-mini"})
    return client, host


def test_a1_a3_a_leg_runs_on_its_own_thread_and_reports_into_the_live_turn(server: LocalServer, workspace: tuple[str, str]) -> None:
    legs: list[tuple[str, str]] = []

    async def go() -> str | None:
        client, host = await coordination(server, workspace)

        async def lead(turn: Turn) -> str:
            if turn.kind == "leg":
                legs.append((turn.thread_id, turn.input))
                return "NVDA rose 4% on the earnings call."
            leg = await tool(turn, "subagents")(
                {"mode": "invoke", "task": "Collect the NVDA headlines.", "model": "gpt-mini", "report_name": "nvda"}
            )
            assert leg["ok"] is True, leg
            return f"Research back: {await turn.steering.next()}"

        async with client, host:
            await host.agent("lead", lead)
            chat = await host.open("lead", thread_id="chat_main")
            answer = await host.send(chat, "What happened to NVDA?")
            await host.idle()
            return answer

    answer = asyncio.run(go())
    assert len(legs) == 1 and legs[0][0] != "chat_main", "the leg has a thread of its own"
    assert legs[0][1] == "Collect the NVDA headlines."
    assert answer is not None and answer.startswith("Research back: [subagent · gpt-mini · session=")
    assert "temp-nvda.md" in answer


def test_a5_a_background_group_opens_its_follow_up_task(server: LocalServer, workspace: tuple[str, str]) -> None:
    follow_ups: list[str] = []

    async def go() -> None:
        client, host = await coordination(server, workspace)
        lead_ended = asyncio.Event()

        async def lead(turn: Turn) -> str:
            if turn.kind == "leg":
                await lead_ended.wait()
                return "Competitors raised prices 5%."
            if turn.kind == "follow_up_task":
                follow_ups.append(turn.input)
                return "Drafted the email."
            bg = await tool(turn, "background_subagents")(
                {
                    "task": "Scan competitor pricing.",
                    "model": "gpt-mini",
                    "report_name": "pricing",
                    "objective": "Decide our Q1 price change",
                    "next": "Draft an email to the pricing committee",
                }
            )
            assert bg.get("task_id"), bg
            return "Started the scan."

        async with client, host:
            await host.agent("lead", lead)
            chat = await host.open("lead", thread_id="chat_main")
            assert await host.send(chat, "Plan the price change") == "Started the scan."
            lead_ended.set()
            await host.idle()
            thread = await client.inputs.get_thread(thread_id=chat)
            assert thread["activity"]["last_response"] == "Drafted the email."

    asyncio.run(go())
    assert len(follow_ups) == 1
    assert "Decide our Q1 price change" in follow_ups[0] and "Draft an email to the pricing committee" in follow_ups[0]


def test_a6_a_schedule_that_comes_due_runs_as_a_turn_of_its_thread(server: LocalServer, workspace: tuple[str, str]) -> None:
    """The server fires `run_schedule` on its wall clock no sooner than minutes ahead, so the
    test writes a real schedule and hands the driver the effect as the server sends it when the
    schedule comes due (its emission is the scenario a6_schedules' to check)."""
    turns: list[tuple[str, str]] = []

    async def go() -> None:
        client, host = await coordination(server, workspace)

        async def lead(turn: Turn) -> str:
            turns.append((turn.kind, turn.input))
            return "Digest sent." if turn.kind == "schedule" else "Noted."

        async with client, host:
            await host.agent("lead", lead)
            chat = await host.open("lead", thread_id="chat_main")
            skill = (await client.host("create_skill", {"base_name": "Daily Digest"}))["skill_name"]
            lead_tools = client.tools(chat, "lead")
            written = await lead_tools.schedules(mode="write", target="task", skill_name=skill, time="+5m")
            due = {"effect": "run_schedule", "thread_id": chat, "bot_id": "lead", "skill_name": skill}
            host._dispatch({**due, "schedule_id": written["schedule"]["schedule_id"]})  # type: ignore[typeddict-item]
            await host.idle()
            thread = await client.inputs.get_thread(thread_id=chat)
            assert thread["activity"]["last_response"] == "Digest sent."
            assert (await client.host("in_flight"))["turns"] == []

    asyncio.run(go())
    assert len(turns) == 1 and turns[0][0] == "schedule"
    assert "daily-digest-" in turns[0][1], "the turn names the skill to run"


def test_a8_ask_user_ends_the_run_and_it_resumes_with_the_answers(server: LocalServer, workspace: tuple[str, str]) -> None:
    asked: list[Question] = []
    turns: list[str] = []

    async def on_question(q: Question) -> list[Any]:
        asked.append(q)
        return ["eu-west-1"]

    async def go() -> None:
        client, host = await coordination(server, workspace, on_question=on_question)

        async def lead(turn: Turn) -> str:
            turns.append(turn.kind)
            if turn.kind == "resume":
                return f"Deploying: {turn.input.splitlines()[-1]}"
            question = {"question": "Which region?", "kind": "single_select", "options": ["eu-west-1", "us-east-2"]}
            r = await tool(turn, "ask_user")({"questions": [question]})
            assert r["status"] == "pending", r
            await asyncio.sleep(30)  # the driver stops the run for the question: a model would stop here
            return "never"

        async with client, host:
            await host.agent("lead", lead, tools=["ask_user"])
            chat = await host.open("lead", thread_id="chat_main")
            await host.send(chat, "Deploy the service")
            await host.idle()
            thread = await client.inputs.get_thread(thread_id=chat)
            assert thread["activity"]["last_response"] == "Deploying: 1. eu-west-1"
            assert (await client.inputs.in_flight())["turns"] == [], "the stopped run ended as a turn, not as an error"

    asyncio.run(go())
    assert len(asked) == 1 and not asked[0].inline and asked[0].questions[0]["question"] == "Which region?"
    assert turns == ["user", "resume"]


def test_a8_inline_the_answers_reach_the_same_live_run(server: LocalServer, workspace: tuple[str, str]) -> None:
    turns: list[str] = []

    async def on_question(q: Question) -> list[Any] | None:
        return ["yes"] if q.inline else None

    async def go() -> str | None:
        client, host = await coordination(server, workspace, on_question=on_question)

        async def lead(turn: Turn) -> str:
            turns.append(turn.kind)
            r = await tool(turn, "ask_user")({"questions": [{"question": "Ship it?", "kind": "text"}]})
            assert r["status"] == "asked_inline", r
            return f"Answer in the same run: {await turn.steering.next()}"

        async with client, host:
            await host.agent("lead", lead, tools=["ask_user"])
            chat = await host.open("lead", thread_id="chat_main", interactive=True)
            answer = await host.send(chat, "Release?")
            await host.idle()
            return answer

    answer = asyncio.run(go())
    assert answer is not None and answer.startswith("Answer in the same run: The user answered question ")
    assert answer.endswith("\n1. yes")
    assert turns == ["user"], "no second run"
