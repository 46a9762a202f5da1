"""The scripted models the OpenAI Agents SDK example runs on in the test command: each is an SDK
``Model`` answering by a script of steps — function calls or a final message — chosen from what
the run's input holds. With OPENAI_API_KEY set, the example uses a real model instead."""

from __future__ import annotations

import asyncio
import itertools
import json
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from agents import ModelResponse, Usage
from agents.items import TResponseInputItem, TResponseOutputItem, TResponseStreamEvent
from agents.models.interface import Model
from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputRefusal, ResponseOutputText

_ids = itertools.count(1)


def call(name: str, args: dict[str, Any]) -> TResponseOutputItem:
    """A function call the model makes."""
    n = next(_ids)
    return ResponseFunctionToolCall(
        type="function_call", id=f"fc_{n}", call_id=f"call_{n}", name=name, arguments=json.dumps(args), status="completed"
    )


def text(t: str) -> TResponseOutputItem:
    """The model's final message."""
    content: list[ResponseOutputText | ResponseOutputRefusal] = [ResponseOutputText(type="output_text", text=t, annotations=[])]
    return ResponseOutputMessage(id=f"msg_{next(_ids)}", type="message", role="assistant", status="completed", content=content)


@dataclass
class Step:
    """What a script sees: the step within this turn (model responses with function calls so
    far), the whole input as JSON text, and the results of this turn's calls."""

    step: int
    seen: str
    results: list[Any]


Script = Callable[[Step], Awaitable[list[TResponseOutputItem]]]


def _get(item: Any, key: str) -> Any:
    return item.get(key) if isinstance(item, dict) else getattr(item, key, None)


class Scripted(Model):
    """An SDK ``Model`` whose answers come from ``script``."""

    def __init__(self, script: Script) -> None:
        self.script = script

    async def get_response(self, system_instructions: Any, input: Any, *args: Any, **kwargs: Any) -> ModelResponse:
        items: list[Any] = [{"role": "user", "content": input}] if isinstance(input, str) else list(input)
        last_user = max((i for i, item in enumerate(items) if _get(item, "role") == "user"), default=-1)
        mine = items[last_user + 1 :]
        step = sum(
            1
            for k, item in enumerate(mine)
            if _get(item, "type") == "function_call" and (k == 0 or _get(mine[k - 1], "type") != "function_call")
        )
        results = []
        for item in mine:
            if _get(item, "type") == "function_call_output":
                raw = _get(item, "output")
                try:
                    results.append(json.loads(raw))
                except (TypeError, ValueError):
                    results.append(raw)
        output = await self.script(Step(step, json.dumps(items, default=str), results))
        return ModelResponse(output=output, usage=Usage(), response_id=f"resp_{next(_ids)}")

    def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[TResponseStreamEvent]:
        raise NotImplementedError("the scripted models answer get_response only")


def scripted_models() -> dict[str, Model]:
    """A fresh set of the delegation's models, one per agent: the lead hands work to adam and
    zed, waits on eve (a synchronous watch), sends adam a follow-up while his run is live,
    cancels zed, and when woken with adam's mail reads handoff_results."""
    follow_up_sent = asyncio.Event()
    ids: dict[str, str] = {}

    async def lead(s: Step) -> list[TResponseOutputItem]:
        if "New mail" in s.seen:
            if s.step == 0:
                return [call("handoff_results", {"handoff_id": ids["adam"]})]
            return [text(f"Adam's findings are in: {s.results[-1].get('result')}")]
        if s.step == 0:
            return [
                call("handoff", {"task": "List the release risks", "target_bot": "adam"}),
                call("handoff", {"task": "Benchmark everything", "target_bot": "zed"}),
            ]
        if s.step == 1:
            ids.update(adam=s.results[0]["handoff_id"], zed=s.results[1]["handoff_id"])
            return [call("handoff", {"task": "Check the data", "target_bot": "eve", "async_mode": False})]
        if s.step == 2:
            return [
                call("handoff_send", {"handoff_id": ids["adam"], "message": "Include the backup job"}),
                call("handoff_cancel", {"handoff_id": ids["zed"], "reason": "not needed"}),
            ]
        follow_up_sent.set()
        return [text("Delegated: adam lists the risks, eve checked the data, zed was cancelled.")]

    async def adam(s: Step) -> list[TResponseOutputItem]:
        found = re.search(r'to_thread_id \\"([^\\"]+)\\", to_bot_id \\"([^\\"]+)\\"', s.seen)
        to, bot = found.groups() if found else ("", "")
        if "Include the backup job" in s.seen:
            # the follow-up, as the next turn (the SDK cannot steer a live run)
            if s.step == 0:
                body = {"action": "SEND_MESSAGE", "to_thread_id": to, "to_bot_id": bot, "body": "Also: the backup job"}
                return [call("mailbox_action", body)]
            return [text("Added.")]
        if s.step == 0:
            await follow_up_sent.wait()
            return [call("mailbox_action", {"action": "READ_MAIL"})]
        if s.step == 1:
            body = {"action": "SEND_MESSAGE", "to_thread_id": to, "to_bot_id": bot, "body": "Risks: cache, migration"}
            return [call("mailbox_action", body)]
        return [text("Reported.")]

    async def eve(s: Step) -> list[TResponseOutputItem]:
        return [text("The data is clean.")]

    async def zed(s: Step) -> list[TResponseOutputItem]:
        await asyncio.Event().wait()  # runs until its handoff is cancelled (on_cancel="abort")
        return []

    return {"lead": Scripted(lead), "adam": Scripted(adam), "eve": Scripted(eve), "zed": Scripted(zed)}
