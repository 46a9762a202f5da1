"""The LangGraph adapter (baton.langgraph) on scripted chat models, against a real `baton serve`:
a lead whose turns are graph runs hands work to adam (also a graph) and waits on eve (G9);
adam reports by mail, which wakes the lead (M5), who reads handoff_results (R1); the agent's own
tools are reported before they run, and a call G13 refuses never runs."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import BaseTool, tool
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition

from baton import AsyncClient, Client, Host, LocalServer
from baton.langgraph import langgraph_agent

LEAD = {"thread": "chat_main", "bot": "lead"}
Script = Callable[[int, str, list[Any]], Awaitable[AIMessage]]


class Scripted(BaseChatModel):
    """A chat model answering by script: the step (model answers with tool calls since the
    turn's last human message), everything seen as text, and this turn's tool results."""

    script: Script

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any) -> ChatResult:
        raise NotImplementedError("the scripted models answer asynchronously")

    async def _agenerate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any) -> ChatResult:
        last = max(i for i, m in enumerate(messages) if isinstance(m, HumanMessage))
        mine = messages[last + 1 :]
        step = sum(1 for m in mine if isinstance(m, AIMessage) and m.tool_calls)
        results = []
        for m in mine:
            if isinstance(m, ToolMessage):
                try:
                    results.append(json.loads(str(m.content)))
                except ValueError:
                    results.append(m.content)
        seen = "\n".join(str(m.content) for m in messages)
        return ChatResult(generations=[ChatGeneration(message=await self.script(step, seen, results))])

    def bind_tools(self, tools: Sequence[Any], **kw: Any) -> Scripted:  # type: ignore[override]
        return self


def graph(model: BaseChatModel) -> Callable[[list[BaseTool]], Any]:
    """An agent graph: the model, then its tool calls, until it answers."""

    def build(tools: list[BaseTool]) -> Any:
        g = StateGraph(MessagesState)

        async def think(state: MessagesState) -> dict[str, Any]:
            return {"messages": [await model.ainvoke(state["messages"])]}

        g.add_node("model", think)
        g.add_node("tools", ToolNode(tools))
        g.add_edge(START, "model")
        g.add_conditional_edges("model", tools_condition, {"tools": "tools", END: END})
        g.add_edge("tools", "model")
        return g.compile()

    return build


def calls(*named: tuple[str, dict[str, Any]]) -> AIMessage:
    return AIMessage(content="", tool_calls=[{"name": n, "args": a, "id": f"call_{n}_{i}"} for i, (n, a) in enumerate(named)])


def test_g9_m5_r1_a_delegation_with_langgraph_agents(server: LocalServer, workspace: tuple[str, str]) -> None:
    ids: dict[str, str] = {}

    async def lead(step: int, seen: str, results: list[Any]) -> AIMessage:
        if "New mail" in seen:
            if step == 0:
                return calls(("handoff_results", {"handoff_id": ids["adam"]}))
            return AIMessage(content=f"Adam's findings are in: {results[-1]['result']}")
        if step == 0:
            return calls(("handoff", {"task": "List the release risks", "target_bot": "adam"}))
        if step == 1:
            ids["adam"] = results[0]["handoff_id"]
            return calls(("handoff", {"task": "Check the data", "target_bot": "eve", "async_mode": False}))
        return AIMessage(content=f"Delegated; eve says: {results[-1]['watch']['result']}")

    async def adam(step: int, seen: str, results: list[Any]) -> AIMessage:
        found = re.search(r'to_thread_id "([^"]+)", to_bot_id "([^"]+)"', seen)
        assert found, seen
        if step == 0:
            body = {"action": "SEND_MESSAGE", "to_thread_id": found[1], "to_bot_id": found[2], "body": "Risks: cache"}
            return calls(("mailbox_action", body))
        return AIMessage(content="Reported.")

    async def eve(step: int, seen: str, results: list[Any]) -> AIMessage:
        return AIMessage(content="The data is clean.")

    async def go() -> str | None:
        async with AsyncClient(server.url, *workspace) as client, Host(client) as host:
            for name, script in (("lead", lead), ("adam", adam), ("eve", eve)):
                await host.agent(name, langgraph_agent(graph(Scripted(script=script))))
            chat = await host.open("lead", thread_id="chat_main")
            answer = await host.send(chat, "Plan the release.")
            await host.idle()
            return answer

    assert asyncio.run(go()) == "Delegated; eve says: The data is clean."
    with Client(server.url, *workspace) as client:
        assert client.call("handoff_results", {"handoff_id": ids["adam"]}, LEAD)["result"] == "Risks: cache"
        thread = client.host("get_thread", {"thread_id": "chat_main"})
        assert thread["activity"]["last_response"] == "Adam's findings are in: Risks: cache"
        assert client.host("in_flight")["turns"] == []


def test_g13_own_tools_are_reported_and_a_refused_call_never_runs(server: LocalServer, workspace: tuple[str, str]) -> None:
    ran: list[str] = []
    seen: list[Any] = []

    @tool
    def lookup(term: str) -> str:
        """Looks a term up."""
        ran.append(term)
        return f"{term}: found"

    async def adam(step: int, text: str, results: list[Any]) -> AIMessage:
        if step == 0:
            return calls(("lookup", {"term": "cache"}))
        seen.append(results[0])
        return AIMessage(content="Looked.")

    async def go() -> tuple[str, str]:
        async with AsyncClient(server.url, *workspace) as client, Host(client) as host:
            await host.agent("lead", lambda turn: asyncio.sleep(0, "ok"))
            await host.agent("adam", langgraph_agent(graph(Scripted(script=adam)), tools=[lookup]))
            chat = await host.open("lead", thread_id="chat_main")
            me = {"thread": chat, "bot": "lead"}
            narrowed = await client.call("handoff", {"task": "Look", "target_bot": "adam", "allowed_tools": ["mailbox_action"]}, me)
            await host.idle()
            assert ran == [], "the refused call did not run"
            allowed = await client.call("handoff", {"task": "Look again", "target_bot": "adam"}, me)
            await host.idle()
            return narrowed["thread_id"], allowed["thread_id"]

    refused_thread, allowed_thread = asyncio.run(go())
    assert "G13" in str(seen[0]), f"the model saw Baton's refusal: {seen[0]}"
    assert ran == ["cache"] and seen[1] == "cache: found"
    with Client(server.url, *workspace) as client:
        activity = client.host("get_thread", {"thread_id": allowed_thread})["activity"]
        assert activity["last_tool_call"]["name"] == "lookup", "the allowed call was reported"
        refused = client.host("get_thread", {"thread_id": refused_thread})["activity"]
        assert (refused.get("tool_call_count") or 0) == 0
