"""The OpenAI Agents SDK adapter for the host driver (``openai-agents``, installed with the package).

A turn is one ``Runner.run`` of the agent (a worker's turn is a run of its own). Baton's tools
for the thread are the SDK's function tools beside the agent's own, the caller bound; each of
the agent's own function tools gets a tool input guardrail — the SDK's hook that runs before a
tool and may reject the call — that reports the call to Baton and rejects what G13 refuses (the
model sees Baton's message, the tool does not run). ``RunHooks`` only observe (they cannot stop a
call), so they are used where observing is all there is: with ``tools="mcp"``, Baton's tools come
through the workspace's MCP endpoint bound to the thread, and the hooks report each call. Each
thread's history is carried from turn to turn (in memory). The SDK cannot steer a live run, so a
follow-up that arrives mid-run runs as the thread's next turn; a cancelled child's run is
cancelled (``on_cancel="abort"``) as any asyncio task is.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Literal

from agents import Agent, FunctionTool, RunConfig, RunHooks, Runner, Tool
from agents.items import TResponseInputItem
from agents.mcp import MCPServerStreamableHttp
from agents.tool_context import ToolContext
from agents.tool_guardrails import ToolGuardrailFunctionOutput, ToolInputGuardrail, ToolInputGuardrailData

from .host import BatonTool, OnCancel, Turn, with_notices


def _parameters(schema: dict[str, Any]) -> dict[str, Any]:
    """A Baton tool schema as the SDK's non-strict JSON object schema."""
    return {"type": "object", "properties": {}, "required": [], "additionalProperties": True, **schema}


def _parse(arguments: str) -> Any:
    """A tool call's arguments (JSON text), as sent."""
    try:
        return json.loads(arguments) if arguments else {}
    except ValueError:
        return arguments


def _function_tool(t: BatonTool) -> FunctionTool:
    async def invoke(ctx: ToolContext[Any], arguments: str) -> str:
        return json.dumps(await t.execute(_parse(arguments)))

    return FunctionTool(
        name=t.name,
        description=t.description,
        params_json_schema=_parameters(t.parameters),
        on_invoke_tool=invoke,
        strict_json_schema=False,
    )


def baton_tools(turn: Turn, tools: Sequence[Tool] = (), *, baton: bool = True) -> list[Tool]:
    """Baton's tools for ``turn`` as function tools (unless ``baton`` is false), and the agent's
    own ``tools`` with each call of a function tool reported (G13) before it runs."""
    # The notices Baton gave each allowed call (M3), by call id, for its result.
    notices: dict[str, list[Any]] = {}

    async def check(data: ToolInputGuardrailData) -> ToolGuardrailFunctionOutput:
        ctx = data.context
        r = await turn.report(ctx.tool_name, _parse(ctx.tool_arguments))
        if r.refused is not None:
            return ToolGuardrailFunctionOutput.reject_content(str(r.refused["error"]), r.refused)
        notices[ctx.tool_call_id] = r.notices
        return ToolGuardrailFunctionOutput.allow()

    guard: ToolInputGuardrail[Any] = ToolInputGuardrail(guardrail_function=check, name="baton")

    def own(t: Tool) -> Tool:
        if not isinstance(t, FunctionTool):
            return t
        inner = t.on_invoke_tool

        async def invoke(ctx: ToolContext[Any], arguments: str) -> Any:
            out = await inner(ctx, arguments)
            given = notices.pop(ctx.tool_call_id, [])
            return json.dumps(with_notices(out, given)) if given else out

        guards = [*(t.tool_input_guardrails or []), guard]
        return dataclasses.replace(t, tool_input_guardrails=guards, on_invoke_tool=invoke)

    mine = [_function_tool(t) for t in turn.tools] if baton else []
    return [*mine, *(own(t) for t in tools)]


class _Reporting(RunHooks[Any]):
    """Reports each tool call of a run to Baton as it starts (``tool_call``), for tools that
    come through MCP: the call itself is checked by Baton when it arrives there."""

    def __init__(self, turn: Turn, inner: RunHooks[Any] | None) -> None:
        self.turn = turn
        self.inner = inner

    async def on_tool_start(self, context: Any, agent: Any, tool: Tool) -> None:
        arguments = getattr(context, "tool_arguments", None)
        await self.turn.report(tool.name, _parse(arguments) if isinstance(arguments, str) else None)
        if self.inner:
            await self.inner.on_tool_start(context, agent, tool)

    def __getattr__(self, name: str) -> Callable[..., Awaitable[None]]:
        inner = self.inner
        if inner is not None and name.startswith("on_"):
            return getattr(inner, name)  # type: ignore[no-any-return]
        raise AttributeError(name)


class OpenAIAgent:
    """An agent for ``Host.agent`` whose turns are runs of an SDK ``Agent`` (see
    ``openai_agent``)."""

    def __init__(
        self,
        agent: Agent[Any],
        *,
        max_turns: int,
        on_cancel: OnCancel | None,
        tools: Literal["functions", "mcp"],
        hooks: RunHooks[Any] | None,
        run_config: RunConfig | None,
    ) -> None:
        self.agent = agent
        self.max_turns = max_turns
        self.on_cancel = on_cancel
        self.via = tools
        self.hooks = hooks
        self.run_config = run_config
        # the agent's own function tools, declared to Baton (G13)
        self.tools = [t.name for t in agent.tools if isinstance(t, FunctionTool)]
        self.history: dict[str, list[TResponseInputItem]] = {}

    async def run(self, turn: Turn) -> str | None:
        before = self.history.get(turn.thread_id, [])
        given: list[TResponseInputItem] = [*before, {"role": "user", "content": turn.input}]
        if self.via == "mcp":
            url, headers = turn.mcp_endpoint()
            server = MCPServerStreamableHttp({"url": url, "headers": headers}, name="baton", cache_tools_list=False)
            async with server:
                agent = self.agent.clone(
                    tools=baton_tools(turn, self.agent.tools, baton=False),
                    mcp_servers=[*self.agent.mcp_servers, server],
                )
                result = await Runner.run(
                    agent, given, max_turns=self.max_turns, hooks=_Reporting(turn, self.hooks), run_config=self.run_config
                )
        else:
            agent = self.agent.clone(tools=baton_tools(turn, self.agent.tools))
            result = await Runner.run(agent, given, max_turns=self.max_turns, hooks=self.hooks, run_config=self.run_config)
        self.history[turn.thread_id] = result.to_input_list()
        out = result.final_output
        return out if isinstance(out, str) else json.dumps(out, default=str)


def openai_agent(
    agent: Agent[Any],
    *,
    max_turns: int = 20,
    on_cancel: OnCancel | None = None,
    tools: Literal["functions", "mcp"] = "functions",
    hooks: RunHooks[Any] | None = None,
    run_config: RunConfig | None = None,
) -> OpenAIAgent:
    """An agent for ``Host.agent`` from an SDK ``Agent`` (its model, instructions and own tools).

    ``max_turns`` bounds one run; ``on_cancel="abort"`` cancels a cancelled child's run;
    ``tools="mcp"`` takes Baton's tools from the workspace's MCP endpoint (the thread bound)
    instead of function tools; ``hooks`` and ``run_config`` are passed to every run.
    """
    return OpenAIAgent(agent, max_turns=max_turns, on_cancel=on_cancel, tools=tools, hooks=hooks, run_config=run_config)
