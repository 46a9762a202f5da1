"""The host driver (``baton.Host``): runs Baton's effects with the agents a host registers, on
asyncio, over a workspace of a running ``baton serve``. It owns the effect loop (``/effects``
followed with a durable cursor), the thread → bot bookkeeping and the reporting around every
turn and tool call (docs/HOST.md), so an adapter only says how one turn of one agent runs.
The same driver as the npm package's ``baton-engine/host``; no rule is decided here: every
check is the engine's.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, Literal, Protocol, cast

from .client import AsyncClient, Caller
from .cursor import Cursor, FileCursor, MemoryCursor
from .errors import BatonError
from .types import (
    AskInlineEffect,
    Effect,
    EndRunEffect,
    InFlightAnswer,
    RegisterAgentAnswer,
    ResumeRunEffect,
    StartChildEffect,
    StartLegEffect,
    WakeEffect,
    WakeEffectMessagesItem,
    WatchReturnedEffect,
)

TurnKind = Literal[
    "user", "task", "wake", "follow_up", "nudge", "sibling", "system", "schedule", "leg", "leg_result",
    "follow_up_task", "resume",
]
"""Why a turn runs: a user's message, a child's task, mail, a follow-up, a reminder, …"""

OnCancel = Literal["finish", "abort"]
"""What a cancelled child's live turn does: run to its end (C1), or be cancelled (its task)."""

DEFAULT_GROUPS: tuple[str, ...] = ("project_manager_tools", "relay_tools", "coordination_tools")
"""The tool groups an agent is registered with unless it says otherwise (G13)."""


def _definitions() -> dict[str, dict[str, Any]]:
    """Every tool's definition (`baton tools`, shipped as ``tools.json``), by name."""
    text = resources.files("baton").joinpath("tools.json").read_text()
    return {d["function"]["name"]: d["function"] for d in json.loads(text)}


_DEFS: dict[str, dict[str, Any]] | None = None


def tool_definitions() -> dict[str, dict[str, Any]]:
    """Every Baton tool's ``{name, description, parameters}``, by name."""
    global _DEFS
    if _DEFS is None:
        _DEFS = _definitions()
    return _DEFS


def child_prompt(e: StartChildEffect) -> str:
    """The input of a child's first turn: the task, its context and how to report (G6, G10)."""
    text = e["task"]
    context = e.get("context_data")
    if context:
        text += f"\n\nContext: {json.dumps(context)}"
    return f"{text}\n\n{e['report_to']['instructions']}"


def mail_prompt(messages: Sequence[WakeEffectMessagesItem]) -> str:
    """The input of a woken turn: the mail it was woken for, whole (M5)."""
    parts = []
    for m in messages:
        subject = f" — {m['subject']}" if m.get("subject") else ""
        parts.append(f"From {m['from_bot_id']} (thread {m['from_thread_id']}){subject}:\n{m['body']}")
    return f"New mail ({len(messages)}):\n\n" + "\n\n".join(parts)


def answers_prompt(e: ResumeRunEffect) -> str:
    """The input of a turn resumed with a user's answers (A8)."""
    lines = [f"{i + 1}. {a if isinstance(a, str) else json.dumps(a)}" for i, a in enumerate(e["answers"])]
    return f"The user answered question {e['question_id']}:\n" + "\n".join(lines)


def with_notices(result: Any, notices: Sequence[Any]) -> Any:
    """A tool's result with the notices that go with it, once (M3)."""
    if not notices:
        return result
    if isinstance(result, Mapping):
        return {**result, "notices": list(notices)}
    return {"result": result, "notices": list(notices)}


class Steering:
    """Follow-ups and reminders that reach a live turn, for the adapter to steer it with."""

    def __init__(self) -> None:
        self._queue: list[str] = []
        self._waiters: list[asyncio.Future[str]] = []
        self._subscriber: Callable[[str], None] | None = None

    def push(self, text: str) -> None:
        if self._subscriber:
            self._subscriber(text)
            return
        while self._waiters:
            w = self._waiters.pop(0)
            if not w.done():
                w.set_result(text)
                return
        self._queue.append(text)

    def subscribe(self, fn: Callable[[str], None]) -> Callable[[], None]:
        """Hands every waiting and every later message to ``fn`` until the returned function is
        called (an adapter forwarding them to its framework's own steering)."""
        self._subscriber = fn
        for t in self.take():
            fn(t)

        def unsubscribe() -> None:
            if self._subscriber is fn:
                self._subscriber = None

        return unsubscribe

    def take(self) -> list[str]:
        """Every message waiting now (each handed out once)."""
        out, self._queue = self._queue, []
        return out

    async def next(self) -> str:
        """The next message, waiting for it."""
        if self._queue:
            return self._queue.pop(0)
        w: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self._waiters.append(w)
        return await w


@dataclass
class Report:
    """What Baton said of a tool call reported before it runs (``tool_call``): ``notices`` to go
    with its result (M3), or ``refused`` (G13: the error for the model; the tool must not run)."""

    notices: list[Any] = field(default_factory=list)
    refused: dict[str, Any] | None = None


ToolFn = Callable[..., Awaitable[Any]]


@dataclass
class BatonTool:
    """One of Baton's tools for a turn's thread, the caller bound: ``execute(args)`` reports the
    call, runs it and answers its result (or the error, for the model)."""

    name: str
    description: str
    parameters: dict[str, Any]
    execute: Callable[[Mapping[str, Any] | None], Awaitable[Any]]


@dataclass
class Turn:
    """One turn of one thread, as the driver hands it to an agent's ``run``."""

    thread_id: str
    bot_id: str
    kind: TurnKind
    input: str
    effect: Effect | None
    restarted: bool
    steering: Steering
    tools: list[BatonTool] = field(default_factory=list)
    cancelled: asyncio.Event = field(default_factory=asyncio.Event)
    """Set when the turn is to stop (a cancelled child with ``on_cancel="abort"``, a question
    that ends the run); the driver then cancels the agent's task too."""
    _host: Host | None = None
    _task: asyncio.Task[str | None] | None = None
    _ending: bool = False

    async def report(self, name: str, args: Any) -> Report:
        """Reports a call of the agent's own tool ``name`` before it runs (for a framework that
        checks a call in a hook of its own)."""
        assert self._host is not None
        return await self._host._report(self.thread_id, name, args)

    def wrap(self, name: str, fn: ToolFn) -> ToolFn:
        """``fn`` (one of the agent's own tools) reported before it runs: a refused call does not
        run and answers Baton's error (G13); an allowed one answers with its notices (M3)."""
        assert self._host is not None
        return self._host._reported(self.thread_id, name, fn)

    with_notices = staticmethod(with_notices)

    def mcp_endpoint(self) -> tuple[str, dict[str, str]]:
        """The workspace's MCP endpoint bound to this turn's thread, and the headers to send:
        Baton's tools for this thread through MCP, for a framework that takes an MCP server."""
        assert self._host is not None
        client = self._host.client
        return client.mcp_url(self.thread_id), {"authorization": f"Bearer {client.key}"}


class TurnRunner(Protocol):
    """What ``Host.agent`` runs: one turn, to the model's final text."""

    async def run(self, turn: Turn) -> str | None: ...


@dataclass
class Question:
    """A model asked the user (A8): answer with ``Host.answer``, in question order."""

    question_id: str
    thread_id: str
    questions: list[Any]
    inline: bool


@dataclass
class _Agent:
    run: Callable[[Turn], Awaitable[str | None]]
    on_cancel: OnCancel


@dataclass
class _What:
    kind: TurnKind
    input: str
    effect: Effect | None = None
    restarted: bool = False


class Host:
    """The host driver over ``client`` (a host key of the workspace).

    ``cursor``: where the last effect handed over is kept (a path, or a ``Cursor``); with a file,
    a restarted host resumes after it and is handed no effect twice (then ``recover()`` runs
    again what was cut off). ``on_effect(effect)`` sees every effect before the driver acts on
    it; ``on_cancel`` is ``"finish"`` (a cancelled child's turn runs to its end, C1) or
    ``"abort"``; ``on_question(question)`` answers a model's question (A8): return the answers,
    or ``None`` to answer later with ``answer()``.
    """

    def __init__(
        self,
        client: AsyncClient,
        *,
        cursor: Cursor | str | os.PathLike[str] | None = None,
        on_effect: Callable[[Effect], None] | None = None,
        on_cancel: OnCancel = "finish",
        on_question: Callable[[Question], Awaitable[list[Any] | None]] | None = None,
    ) -> None:
        self.client = client
        if cursor is None:
            self.cursor: Cursor = MemoryCursor()
        elif isinstance(cursor, (str, os.PathLike)):
            self.cursor = FileCursor(cursor)
        else:
            self.cursor = cursor
        self.on_effect = on_effect
        self.on_cancel = on_cancel
        self.on_question = on_question
        self._agents: dict[str, _Agent] = {}
        self._bots: dict[str, str] = {}  # thread → its bot, as far as this host has seen
        self._parked: list[tuple[str, str, _What]] = []  # turns for agents not registered yet
        self._live: dict[str, Turn] = {}  # thread → the turn running on it
        self._chains: dict[str, asyncio.Task[str | None]] = {}  # thread → its last turn
        self._running: set[asyncio.Future[Any]] = set()
        self._watches: dict[str, asyncio.Future[WatchReturnedEffect] | WatchReturnedEffect] = {}
        self._abort_next: set[str] = set()  # threads whose pending turn is cancelled
        self._follower: asyncio.Task[None] | None = None
        self._arrived = asyncio.Event()
        self._failure: BaseException | None = None

    # -- commands -------------------------------------------------------------------------

    async def _host(self, input: str, args: Mapping[str, Any]) -> Any:
        self._follow()
        return await self.client.host(input, args)

    async def agent(
        self,
        bot_id: str,
        agent: TurnRunner | Callable[[Turn], Awaitable[str | None]],
        *,
        tools: Sequence[str] | None = None,
        on_cancel: OnCancel | None = None,
        groups: Sequence[str] = DEFAULT_GROUPS,
        **options: Any,
    ) -> RegisterAgentAnswer:
        """Registers an agent: ``agent`` runs one turn (an object with ``run(turn)``, such as
        ``baton.agents.openai_agent(...)``, or a function of the turn) and answers the model's
        final text. ``tools`` names the agent's own tools (declared to Baton beside ``groups``,
        G13; an adapter's own list when not given); ``options`` are ``register_agent``'s other
        arguments (``display_name``, ``tool_policy``, …)."""
        run = cast(Callable[[Turn], Awaitable[str | None]], getattr(agent, "run", agent))
        own = list(tools if tools is not None else getattr(agent, "tools", []) or [])
        cancel = on_cancel or getattr(agent, "on_cancel", None) or self.on_cancel
        self._agents[bot_id] = _Agent(run, cast(OnCancel, cancel))
        registered = await self._host("register_agent", {"bot_id": bot_id, "tools": [*groups, *own], **options})
        mine = [p for p in self._parked if p[1] == bot_id]
        self._parked = [p for p in self._parked if p[1] != bot_id]
        for thread_id, bot, what in mine:
            self._spawn(thread_id, bot, what)
        return cast(RegisterAgentAnswer, registered)

    async def open(self, bot_id: str, **options: Any) -> str:
        """Opens a conversation of ``bot_id`` (``open_thread``); answers its thread id."""
        r = await self._host("open_thread", {"bot_id": bot_id, **options})
        return cast(str, r["thread_id"])

    async def send(self, thread_id: str, text: str) -> str | None:
        """Runs a turn of a thread on what a user said; answers its final text."""
        return await self._turn(thread_id, await self._bot_of(thread_id), _What("user", text))

    async def answer(self, question_id: str, answers: Sequence[Any]) -> Any:
        """Answers a question a model asked (``ask_user``, A8): the run resumes with the answers."""
        return await self._host("answer_user", {"question_id": question_id, "answers": list(answers)})

    async def recover(self) -> InFlightAnswer:
        """After a restart: runs again the children that were cut off or never started, and ends
        the other turns that were cut off (their input is not Baton's to know)."""
        flying = cast(InFlightAnswer, await self._host("in_flight", {}))
        rerun = set()
        for c in flying["children"]:
            start = c["start"]
            if start["effect"] != "start_child":
                continue
            rerun.add(start["thread_id"])
            self._start_child(start, restarted=True)
        for t in flying["turns"]:
            if t["thread_id"] not in rerun:
                await self._host("turn_ended", {"thread_id": t["thread_id"]})
        return flying

    async def idle(self) -> None:
        """Returns when no turn runs and every effect the server holds has been handed over."""
        self._follow()
        while True:
            self._raise_failure()
            if self._running:
                await asyncio.wait(set(self._running))
                continue
            after = self.cursor.load()
            page = await self.client.effects(after=after, limit=1)
            if page["effects"] and page["effects"][0]["seq"] > after:
                # wait for the stream to hand it over (or look again shortly)
                self._arrived.clear()
                try:
                    await asyncio.wait_for(self._arrived.wait(), 0.1)
                except asyncio.TimeoutError:
                    pass
                continue
            if await self._unpark():
                continue
            return

    async def close(self) -> None:
        """Stops following effects; running turns are cancelled."""
        if self._follower:
            self._follower.cancel()
            await asyncio.gather(self._follower, return_exceptions=True)
            self._follower = None
        for t in list(self._running):
            t.cancel()
        if self._running:
            await asyncio.gather(*self._running, return_exceptions=True)

    async def __aenter__(self) -> Host:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # -- the effect loop ------------------------------------------------------------------

    def _follow(self) -> None:
        if self._follower is None:
            self._follower = asyncio.ensure_future(self._pump())

    async def _pump(self) -> None:
        try:
            async for event in self.client.follow_effects(self.cursor):
                effect = dict(event.data)
                effect.pop("seq", None)
                self._dispatch(cast(Effect, effect))
                self._arrived.set()
        except asyncio.CancelledError:
            raise
        except BaseException as e:  # a refused stream (a revoked key): idle() raises it
            self._failure = e
            self._arrived.set()

    def _raise_failure(self) -> None:
        if self._failure is not None:
            raise self._failure

    def _dispatch(self, e: Effect) -> None:
        if self.on_effect:
            self.on_effect(e)
        if e["effect"] == "start_child":
            self._start_child(e, restarted=False)
        elif e["effect"] == "watch_returned":
            w = self._watches.get(e["handoff_id"])
            if isinstance(w, asyncio.Future):
                if not w.done():
                    w.set_result(e)
            else:
                self._watches[e["handoff_id"]] = e
        elif e["effect"] == "wake":
            self._spawn(e["thread_id"], e["bot_id"], _What("wake", mail_prompt(e["messages"]), e))
        elif e["effect"] == "follow_up":
            self._deliver(e["thread_id"], _What("follow_up", e["message"], e), e["bot_id"])
        elif e["effect"] == "nudge":
            self._deliver(e["thread_id"], _What("nudge", e["text"], e), e["bot_id"])
        elif e["effect"] == "handoff_cancelled":
            agent = self._agents.get(e["bot_id"])
            if agent and agent.on_cancel == "abort":
                self._abort(e["thread_id"])
        elif e["effect"] == "start_sibling":
            self._spawn(e["thread_id"], e["bot_id"], _What("sibling", e["context"], e))
        elif e["effect"] == "system_message":
            self._deliver(e["thread_id"], _What("system", e["text"], e))
        elif e["effect"] == "run_schedule":
            text = f"Run the scheduled skill {e['skill_name']} now."
            self._spawn(e["thread_id"], e["bot_id"], _What("schedule", text, e))
        elif e["effect"] == "start_leg":
            self._track(self._leg(e))
        elif e["effect"] == "leg_result":
            self._deliver(e["parent_thread_id"], _What("leg_result", e["result"], e))
        elif e["effect"] == "start_follow_up_task":
            self._track(self._follow_up_task(e["thread_id"], e["bot_id"], _What("follow_up_task", e["prompt"], e)))
        elif e["effect"] == "ask_inline" or e["effect"] == "end_run":
            self._track(self._question(e))
        elif e["effect"] == "resume_run":
            self._deliver(e["thread_id"], _What("resume", answers_prompt(e), e))
        # the rest (redirect, callback, relay_notify) are left to on_effect (docs/HOST.md)

    def _track(self, work: Awaitable[Any]) -> None:
        """Work the driver started that ``idle()`` waits for."""
        task = asyncio.ensure_future(work)
        self._running.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Future[Any]) -> None:
        self._running.discard(task)
        if not task.cancelled():
            task.exception()  # retrieved: a failed turn was reported to Baton already

    def _deliver(self, thread_id: str, what: _What, bot_id: str | None = None) -> None:
        """Into the thread's live turn as steering, or else as a turn of its own."""
        live = self._live.get(thread_id)
        # a turn stopping for a question takes nothing more: what comes runs after it
        if live and not live._ending:
            live.steering.push(what.input)
        elif bot_id:
            self._spawn(thread_id, bot_id, what)
        else:

            async def later() -> None:
                self._spawn(thread_id, await self._bot_of(thread_id), what)

            self._track(later())

    def _abort(self, thread_id: str) -> None:
        live = self._live.get(thread_id)
        if live:
            live.cancelled.set()
            if live._task:
                live._task.cancel()
        elif thread_id in self._chains and not self._chains[thread_id].done():
            self._abort_next.add(thread_id)  # its turn has not started yet

    async def _follow_up_task(self, thread_id: str, bot_id: str, what: _What) -> None:
        await self._host("start_task", {"thread_id": thread_id})
        self._spawn(thread_id, bot_id, what)

    async def _leg(self, e: StartLegEffect) -> None:
        """A leg (A1): a turn of the parent's agent on the leg's own thread, which sees none of
        the parent conversation; its final text is the report (A3), a failure ``leg_failed``."""
        bot = await self._bot_of(e["parent_thread_id"])
        self._bots[e["thread_id"]] = bot
        prompt = f"{e['system_prompt']}\n\n{e['task']}" if e.get("system_prompt") else e["task"]
        try:
            text = await self._turn(e["thread_id"], bot, _What("leg", prompt, e))
        except Exception as err:
            await self._host("leg_failed", {"leg_id": e["leg_id"], "error": str(err) or "the leg failed"})
            return
        report = text if isinstance(text, str) and text.strip() else "(no report)"
        await self._host("leg_report", {"leg_id": e["leg_id"], "text": report})

    async def _question(self, e: AskInlineEffect | EndRunEffect) -> None:
        """A model asked the user (A8). ``end_run``: its turn ends now (it resumes with the
        answers, ``resume_run``); ``ask_inline``: it goes on and the answers reach it as
        steering."""
        if e["effect"] == "end_run":
            live = self._live.get(e["thread_id"])
            if live:
                live._ending = True
                live.cancelled.set()
                if live._task:
                    live._task.cancel()
        if not self.on_question:
            return
        question = Question(e["question_id"], e["thread_id"], list(e["questions"]), e["effect"] == "ask_inline")
        answers = await self.on_question(question)
        if answers is not None:
            await self.answer(e["question_id"], answers)

    def _start_child(self, e: StartChildEffect, *, restarted: bool) -> None:
        self._spawn(e["thread_id"], e["bot_id"], _What("task", child_prompt(e), e, restarted))

    def _spawn(self, thread_id: str, bot_id: str, what: _What) -> None:
        """A turn for an agent this host runs; one for an agent not registered yet waits for it
        (a restarted host gets effects before it has registered all its agents)."""
        if bot_id not in self._agents:
            self._parked.append((thread_id, bot_id, what))
            return
        self._turn(thread_id, bot_id, what)

    async def _unpark(self) -> bool:
        """When nothing else runs: the children still waiting for an agent no one registered
        could not be started (``start_failed``, G18); other waiting turns are dropped."""
        left, self._parked = self._parked, []
        for thread_id, bot_id, what in left:
            if what.effect is not None and what.effect["effect"] == "start_child":
                try:
                    error = f"no agent '{bot_id}' runs on this host"
                    await self._host("start_failed", {"thread_id": thread_id, "error": error})
                except BatonError:
                    pass
        return bool(left)

    async def _bot_of(self, thread_id: str) -> str:
        known = self._bots.get(thread_id)
        if known:
            return known
        r = await self._host("get_thread", {"thread_id": thread_id})
        bot = cast(str, r["thread"]["bot_id"])
        self._bots[thread_id] = bot
        return bot

    # -- turns ----------------------------------------------------------------------------

    def _turn(self, thread_id: str, bot_id: str, what: _What) -> asyncio.Task[str | None]:
        """Runs one turn of a thread after the turns before it."""
        before = self._chains.get(thread_id)

        async def after_the_last() -> str | None:
            if before is not None and not before.done():
                await asyncio.wait([before])
            return await self._run(thread_id, bot_id, what)

        task = asyncio.ensure_future(after_the_last())
        self._chains[thread_id] = task
        self._running.add(task)
        task.add_done_callback(self._done)
        return task

    async def _run(self, thread_id: str, bot_id: str, what: _What) -> str | None:
        agent = self._agents.get(bot_id)
        if agent is None:
            raise BatonError(-32001, f"no agent '{bot_id}' runs on this host", name="not_found")
        turn = Turn(thread_id, bot_id, what.kind, what.input, what.effect, what.restarted, Steering(), _host=self)
        self._live[thread_id] = turn
        self._bots[thread_id] = bot_id
        if thread_id in self._abort_next:
            self._abort_next.discard(thread_id)
            turn.cancelled.set()
        try:
            await self._host("turn_started", {"thread_id": thread_id})
            if turn.cancelled.is_set():
                raise _Stopped()
            names = (await self._host("tools_for", {"thread_id": thread_id}))["tools"]
            turn.tools = self._baton_tools(thread_id, bot_id, names)
            turn._task = asyncio.ensure_future(agent.run(turn))
            try:
                text = await turn._task
            except asyncio.CancelledError:
                if not turn.cancelled.is_set():
                    raise  # the driver itself is being cancelled (close)
                raise _Stopped() from None
            if isinstance(text, str) and text:
                await self._host("response", {"thread_id": thread_id, "text": text})
            self._live.pop(thread_id, None)
            await self._host("turn_ended", {"thread_id": thread_id})
            # Follow-ups the turn did not take in run as the thread's next turn (H1).
            left = turn.steering.take()
            if left:
                self._spawn(thread_id, bot_id, _What("follow_up", "\n\n".join(left)))
            return text
        except (Exception, _Stopped, asyncio.CancelledError) as err:
            if self._live.get(thread_id) is turn:
                del self._live[thread_id]
            if turn._ending:
                # stopped for a question (A8): the run ends as any other and resumes when answered
                await self._host("turn_ended", {"thread_id": thread_id})
                return None
            if isinstance(err, asyncio.CancelledError) and not turn.cancelled.is_set():
                raise
            message = "the turn was cancelled (its handoff was cancelled)" if turn.cancelled.is_set() else str(err)
            await self._host("child_error", {"thread_id": thread_id, "error": message or "the turn failed"})
            raise

    async def _report(self, thread_id: str, name: str, args: Any) -> Report:
        try:
            used = await self._host("tool_call", {"thread_id": thread_id, "tool": name, "arguments": args})
            return Report(notices=list(used.get("notices") or []))
        except BatonError as e:
            return Report(refused=e.to_dict())

    def _reported(self, thread_id: str, name: str, fn: ToolFn) -> ToolFn:
        async def reported(args: Any = None, *rest: Any, **kw: Any) -> Any:
            r = await self._report(thread_id, name, args)
            if r.refused is not None:
                return r.refused
            return with_notices(await fn(args, *rest, **kw), r.notices)

        return reported

    def _baton_tools(self, thread_id: str, bot_id: str, names: Sequence[str]) -> list[BatonTool]:
        """Baton's tools for a thread, caller bound, each reported and, for a watched
        ``handoff``, answered when its watch returns (G9)."""
        defs = tool_definitions()
        caller = Caller(thread=thread_id, bot=bot_id)

        def make(name: str) -> BatonTool:
            async def run(args: Any = None) -> Any:
                try:
                    out = await self.client.call(name, dict(args or {}), caller)
                except BatonError as e:
                    return e.to_dict()
                if name == "handoff" and out.get("success") and (args or {}).get("async_mode") is False:
                    out = {**out, "watch": await self._watch(out["handoff_id"])}
                return out

            d = defs[name]
            return BatonTool(name, d["description"], d["parameters"], self._reported(thread_id, name, run))

        return [make(n) for n in names if n in defs]

    async def _watch(self, handoff_id: str) -> WatchReturnedEffect:
        early = self._watches.get(handoff_id)
        if early is not None and not isinstance(early, asyncio.Future):
            del self._watches[handoff_id]
            return early
        w: asyncio.Future[WatchReturnedEffect] = asyncio.get_running_loop().create_future()
        self._watches[handoff_id] = w
        try:
            return await w
        finally:
            self._watches.pop(handoff_id, None)


class _Stopped(Exception):
    """A turn the driver stopped (a cancelled child with ``on_cancel="abort"``, or a question
    that ends the run)."""

    def __str__(self) -> str:
        return "the turn was stopped"
