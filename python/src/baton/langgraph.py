"""The LangGraph adapter for the host driver (``pip install "./python[langgraph]"``).

A turn is one run of a graph (``ainvoke``) whose state holds ``messages``, as LangGraph's
agent graphs do. ``build(tools)`` makes that graph from the turn's tools: Baton's tools for the
thread as LangChain tools (the caller bound), and the agent's own tools, each call reported to
Baton before it runs (a call G13 refuses does not run; the model sees Baton's error). Each
thread's messages are carried from turn to turn (in memory). A graph cannot be steered while it
runs, so a follow-up that arrives mid-run runs as the thread's next turn; a cancelled child's
run is cancelled (``on_cancel="abort"``) as any asyncio task is.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.tools import BaseTool, StructuredTool

from .host import BatonTool, OnCancel, Turn


class MessagesGraph(Protocol):
    """What ``build`` makes: a compiled graph (or any runnable) over ``{"messages": [...]}``."""

    async def ainvoke(self, input: Any, config: Any = None, **kwargs: Any) -> Any: ...


def _text(result: Any) -> str:
    return result if isinstance(result, str) else json.dumps(result, default=str)


def _baton_tool(t: BatonTool) -> BaseTool:
    async def run(**args: Any) -> str:
        return _text(await t.execute(args))

    return StructuredTool(name=t.name, description=t.description, args_schema=t.parameters, coroutine=run)


def _reported(turn: Turn, t: BaseTool) -> BaseTool:
    """``t`` with each call reported to Baton before it runs (``Turn.wrap``: G13; notices with
    the result, M3)."""
    wrapped = turn.wrap(t.name, t.ainvoke)

    async def run(**args: Any) -> Any:
        out = await wrapped(args)
        return _text(out) if isinstance(out, dict) else out

    schema = t.args_schema if t.args_schema is not None else t.tool_call_schema
    return StructuredTool(name=t.name, description=t.description, args_schema=schema, coroutine=run)


def baton_tools(turn: Turn, tools: Sequence[BaseTool] = ()) -> list[BaseTool]:
    """Baton's tools for ``turn`` as LangChain tools, and the agent's own ``tools`` reported."""
    return [*(_baton_tool(t) for t in turn.tools), *(_reported(turn, t) for t in tools)]


class LangGraphAgent:
    """An agent for ``Host.agent`` whose turns are runs of the graph ``build`` makes (see
    ``langgraph_agent``)."""

    def __init__(
        self,
        build: Callable[[list[BaseTool]], MessagesGraph],
        *,
        tools: Sequence[BaseTool],
        on_cancel: OnCancel | None,
        recursion_limit: int,
    ) -> None:
        self.build = build
        self.own = list(tools)
        self.tools = [t.name for t in self.own]  # declared to Baton (G13)
        self.on_cancel = on_cancel
        self.recursion_limit = recursion_limit
        self.history: dict[str, list[BaseMessage]] = {}

    async def run(self, turn: Turn) -> str | None:
        graph = self.build(baton_tools(turn, self.own))
        messages = [*self.history.get(turn.thread_id, []), HumanMessage(turn.input)]
        state = await graph.ainvoke({"messages": messages}, {"recursion_limit": self.recursion_limit})
        out: list[BaseMessage] = list(state["messages"])
        self.history[turn.thread_id] = out
        last = next((m for m in reversed(out) if isinstance(m, AIMessage)), None)
        if last is None:
            return None
        return last.content if isinstance(last.content, str) else _text(last.content)


def langgraph_agent(
    build: Callable[[list[BaseTool]], MessagesGraph],
    *,
    tools: Sequence[BaseTool] = (),
    on_cancel: OnCancel | None = None,
    recursion_limit: int = 25,
) -> LangGraphAgent:
    """An agent for ``Host.agent`` whose turns run the graph ``build(tools)`` makes — for
    instance ``lambda tools: create_agent(model, tools)`` (``langchain.agents``) or a
    ``StateGraph`` of your own, compiled — over the turn's messages.

    ``tools`` are the agent's own (declared to Baton and reported, G13); ``on_cancel="abort"``
    cancels a cancelled child's run; ``recursion_limit`` bounds one run.
    """
    return LangGraphAgent(build, tools=tools, on_cancel=on_cancel, recursion_limit=recursion_limit)
