"""The OpenAI Agents SDK adapter (baton.agents) on scripted models, against a real `baton serve`:
the example's delegation end to end — the lead's handoffs, eve's synchronous watch (G9), the
follow-up sent while adam's run is live (H1: the SDK cannot steer a live run, so the driver runs
it as adam's next turn and the report waits for it, S5), zed's cancel cancelling its run (C1),
the wake with adam's mail (M5) and handoff_results (R1); the agent's own tools behind Baton's
guardrail (G13); Baton's tools through MCP with the thread bound."""

from __future__ import annotations

import asyncio
import runpy
from pathlib import Path
from typing import Any

from agents import Agent, function_tool, set_tracing_disabled

from baton import AsyncClient, Client, Host, LocalServer
from baton.agents import openai_agent

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "openai-agents-py"
set_tracing_disabled(True)
scripted = runpy.run_path(str(EXAMPLE / "scripted-model.py"))
LEAD = {"thread": "chat_main", "bot": "lead"}


def records(client: Client) -> list[dict[str, Any]]:
    return [c for r in client.log(limit=10000)["records"] for c in r["changes"]]


def test_g9_h1_c1_m5_the_example_delegation_against_baton_serve(server: LocalServer, workspace: tuple[str, str]) -> None:
    main = runpy.run_path(str(EXAMPLE / "delegation.py"))["main"]
    answer = asyncio.run(main(server.url, *workspace))
    assert answer == "Delegated: adam lists the risks, eve checked the data, zed was cancelled."
    with Client(server.url, *workspace) as client:
        changes = records(client)
        child = {c["bot_id"]: c["handoff_id"] for c in changes if c.get("kind") == "thread" and c.get("handoff_id")}
        results = {bot: client.call("handoff_results", {"handoff_id": h}, LEAD) for bot, h in child.items()}
        assert results["eve"]["result"] == "The data is clean."
        assert results["adam"]["status"] == "completed"
        assert results["adam"]["result"] == "Risks: cache, migration"
        assert results["zed"]["status"] == "cancelled"
        mail = [c["body"] for c in changes if c.get("kind") == "message" and c.get("to_thread_id") == "chat_main"]
        assert "Also: the backup job" in mail, "the follow-up ran as adam's next turn and he answered it"
        thread = client.host("get_thread", {"thread_id": "chat_main"})
        assert "Adam's findings are in: Risks: cache, migration" in thread["activity"]["last_response"]
        assert client.host("in_flight")["turns"] == [], "every turn ended"


def test_g13_own_tools_go_through_the_guardrail(server: LocalServer, workspace: tuple[str, str]) -> None:
    ran: list[str] = []
    seen: list[Any] = []

    @function_tool
    def lookup(term: str) -> str:
        """Looks a term up."""
        ran.append(term)
        return f"{term}: found"

    async def script(s: Any) -> list[Any]:
        if s.step == 0:
            return [scripted["call"]("lookup", {"term": "cache"})]
        seen.append(s.results[0])
        return [scripted["text"](f"Lookup said: {s.results[0]}")]

    model = scripted["Scripted"](script)

    async def go() -> tuple[dict[str, Any], dict[str, Any]]:
        async with AsyncClient(server.url, *workspace) as client, Host(client) as host:
            await host.agent("lead", lambda turn: asyncio.sleep(0, "ok"))
            await host.agent("adam", openai_agent(Agent(name="adam", instructions="Look up.", model=model, tools=[lookup])))
            chat = await host.open("lead", thread_id="chat_main")
            me = {"thread": chat, "bot": "lead"}
            narrowed = await client.call("handoff", {"task": "Look", "target_bot": "adam", "allowed_tools": ["mailbox_action"]}, me)
            await host.idle()
            assert ran == [], "the refused call did not run"
            allowed = await client.call("handoff", {"task": "Look again", "target_bot": "adam"}, me)
            await host.idle()
            return narrowed, allowed

    narrowed, allowed = asyncio.run(go())
    assert "allowed_tools" in str(seen[0]) and "G13" in str(seen[0]), f"the model saw Baton's refusal: {seen[0]}"
    assert ran == ["cache"]
    assert seen[1] == "cache: found"
    with Client(server.url, *workspace) as client:
        status = client.call("handoff_status", {"handoff_id": allowed["handoff_id"]}, LEAD)
        assert status["last_tool_call"]["name"] == "lookup", "the allowed call was reported"
        assert (client.call("handoff_status", {"handoff_id": narrowed["handoff_id"]}, LEAD).get("tool_call_count") or 0) == 0


def test_m2_baton_tools_through_mcp_with_the_thread_bound(server: LocalServer, workspace: tuple[str, str]) -> None:
    listed: list[list[str]] = []

    async def script(s: Any) -> list[Any]:
        if s.step == 0:
            found = __import__("re").search(r'to_thread_id \\"([^\\"]+)\\", to_bot_id \\"([^\\"]+)\\"', s.seen)
            to, bot = found.groups()
            body = {"action": "SEND_MESSAGE", "to_thread_id": to, "to_bot_id": bot, "body": "Through MCP"}
            return [scripted["call"]("mailbox_action", body)]
        return [scripted["text"]("Reported through MCP.")]

    class Listing(scripted["Scripted"]):  # type: ignore[misc]
        async def get_response(self, system_instructions: Any, input: Any, model_settings: Any, tools: Any, *a: Any, **k: Any) -> Any:
            listed.append(sorted(t.name for t in tools))
            return await super().get_response(system_instructions, input, model_settings, tools, *a, **k)

    async def go() -> dict[str, Any]:
        async with AsyncClient(server.url, *workspace) as client, Host(client) as host:
            await host.agent("lead", lambda turn: asyncio.sleep(0, "ok"))
            await host.agent("adam", openai_agent(Agent(name="adam", instructions="Report.", model=Listing(script)), tools="mcp"))
            chat = await host.open("lead", thread_id="chat_main")
            h = await client.call("handoff", {"task": "Report", "target_bot": "adam"}, {"thread": chat, "bot": "lead"})
            await host.idle()
            status = await client.call("handoff_status", {"handoff_id": h["handoff_id"]}, LEAD)
            thread = await client.inputs.get_thread(thread_id=status["child_thread_id"])
            return {**status, "activity": thread["activity"]}

    status = asyncio.run(go())
    assert "mailbox_action" in listed[0] and "handoff_release" not in listed[0], listed[0]
    assert status["status"] == "completed", status
    activity = status["activity"]
    assert activity["last_tool_call"]["name"] == "mailbox_action", f"the run's hooks reported the MCP call: {activity}"
    assert activity["tool_call_count"] == 1
