"""Clients for a workspace of a running `baton serve`: every JSON-RPC method, batches, and the
``/events`` and ``/effects`` streams followed with exact resume.

``AsyncClient`` (asyncio) and ``Client`` (blocking) have the same methods; each method is
written once, in ``_Methods``, over the one request function each client brings. JSON is read
and written here only: what goes in is a typed dict (``baton.types``), what comes out the parsed
answer.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar
from urllib.parse import quote

import httpx
from httpx_sse import ServerSentEvent, aconnect_sse, connect_sse
from typing_extensions import TypedDict

from .cursor import Cursor, MemoryCursor
from .errors import BatonError
from .types import AsyncInputs, AsyncTools, Inputs, Tools


class Caller(TypedDict, total=False):
    """Who calls a tool: the calling ``thread`` and its ``bot``, or a teammate's ``handle``."""

    thread: str
    bot: str
    handle: str


@dataclass(frozen=True)
class Request:
    """One JSON-RPC request of a batch (``Client.batch``)."""

    method: str
    params: Mapping[str, Any] = field(default_factory=dict)

    @staticmethod
    def call(tool: str, args: Mapping[str, Any], caller: Caller, *, idempotency_key: str | None = None) -> Request:
        """A tool call as ``caller``."""
        return Request("call", _keyed({"tool": tool, "args": dict(args), "as": dict(caller)}, idempotency_key))

    @staticmethod
    def host(input: str, args: Mapping[str, Any] | None = None, *, idempotency_key: str | None = None) -> Request:
        """A host input."""
        return Request("host", _keyed({"input": input, "args": dict(args or {})}, idempotency_key))


@dataclass(frozen=True)
class Event:
    """One event of ``/events`` (a log record) or ``/effects`` (an effect): its sequence number
    (the stream's ``id``, what resumes it) and its parsed data."""

    seq: int
    data: Any


def _keyed(params: dict[str, Any], key: str | None) -> dict[str, Any]:
    if key is not None:
        params["idempotency_key"] = key
    return params


# Methods whose request may be sent again without its running twice: reads, and ones that
# answer the same when repeated. `call` and `host` are, with an idempotency key.
_REPEATABLE = frozenset({"list_keys", "export", "log", "effects", "writer", "create_workspace", "revoke_key"})


def _repeatable(method: str, params: Mapping[str, Any]) -> bool:
    return method in _REPEATABLE or (method in ("call", "host") and "idempotency_key" in params)


def _answer(body: Any) -> Any:
    """The result of one JSON-RPC answer, or its error raised."""
    if not isinstance(body, Mapping):
        raise BatonError(-32603, f"the server's answer is not a JSON-RPC answer: {body!r}", name="transport")
    error = body.get("error")
    if isinstance(error, Mapping):
        raise BatonError.from_answer(error)
    return body.get("result")


def _parse(response: httpx.Response) -> Any:
    if response.status_code == 204:
        return None
    try:
        return response.json()
    except ValueError:
        message = f"HTTP {response.status_code}: {response.text[:200]}"
        raise BatonError(-32603, message, name="transport") from None


def _stream_refusal(response: httpx.Response, text: str) -> BatonError:
    """A stream refused before it started (401, 404, 429, 400): the server says why in text."""
    status = response.status_code
    name, code = {
        401: ("forbidden", -32002),
        404: ("not_found", -32001),
        429: ("rate_limited", -32003),
        400: ("invalid_params", -32602),
    }.get(status, ("transport", -32603))
    return BatonError(code, text.strip() or f"HTTP {status}", name=name)


def _event(sse: ServerSentEvent, after: int) -> Event | None:
    """An event newer than ``after``; keepalives and events already seen give ``None``."""
    if not sse.id or not sse.data:
        return None
    try:
        seq = int(sse.id)
    except ValueError:
        return None
    if seq <= after:
        return None
    return Event(seq, httpx.Response(200, content=sse.data.encode()).json())


R = TypeVar("R")


class _Methods(Generic[R]):
    """Every JSON-RPC method of ``baton serve``, each written once over ``_rpc``: ``R`` is
    ``Awaitable[Any]`` for the asyncio client and ``Any`` for the blocking one."""

    def _rpc(self, method: str, params: Mapping[str, Any]) -> R:
        raise NotImplementedError

    def call(self, tool: str, args: Mapping[str, Any], caller: Caller, *, idempotency_key: str | None = None) -> R:
        """A tool call as ``caller`` (a thread and its bot, or a teammate's handle). With an
        ``idempotency_key``, sending it again gives the first answer and runs nothing twice."""
        return self._rpc("call", Request.call(tool, args, caller, idempotency_key=idempotency_key).params)

    def host(self, input: str, args: Mapping[str, Any] | None = None, *, idempotency_key: str | None = None) -> R:
        """A host input (docs/HOST.md): what an agent did, or a question to the engine."""
        return self._rpc("host", Request.host(input, args, idempotency_key=idempotency_key).params)

    def create_workspace(self) -> R:
        """Creates the workspace (admin key): ``{workspace, created}``; ``created`` is false when
        it was there already."""
        return self._rpc("create_workspace", {})

    def create_key(self, principal: str, *, expires_in_seconds: int | None = None) -> R:
        """A new key (admin): ``principal`` is ``host``, ``bot:ID`` or ``teammate:HANDLE``. The
        answer holds the key, once, and its ``key_id``."""
        params: dict[str, Any] = {"principal": principal}
        if expires_in_seconds is not None:
            params["expires_in_seconds"] = expires_in_seconds
        return self._rpc("create_key", params)

    def list_keys(self) -> R:
        """The workspace's keys (admin): ids, principals, states and times, never the keys."""
        return self._rpc("list_keys", {})

    def revoke_key(self, key_id: str) -> R:
        """Revokes a key (admin): refused from then on, on every node; its streams end."""
        return self._rpc("revoke_key", {"key_id": key_id})

    def rotate_key(
        self, key_id: str, *, grace_seconds: int | None = None, expires_in_seconds: int | None = None
    ) -> R:
        """A new key for the same principal (admin); the old one is revoked, or expires after
        ``grace_seconds``."""
        params: dict[str, Any] = {"key_id": key_id}
        if grace_seconds is not None:
            params["grace_seconds"] = grace_seconds
        if expires_in_seconds is not None:
            params["expires_in_seconds"] = expires_in_seconds
        return self._rpc("rotate_key", params)

    def export(self) -> R:
        """A snapshot of the workspace's state, as lines (host key)."""
        return self._rpc("export", {})

    def log(self, *, after: int = 0, limit: int | None = None) -> R:
        """The log's records after sequence number ``after``, oldest first (host key):
        ``{records, next_after}``."""
        return self._rpc("log", _page(after, limit))

    def effects(self, *, after: int = 0, limit: int | None = None) -> R:
        """The effects after ``after`` that this key sees, each with its ``seq``:
        ``{effects, next_after}``."""
        return self._rpc("effects", _page(after, limit))

    def writer(self) -> R:
        """Which node writes the workspace: ``{node, url, current}`` (host key)."""
        return self._rpc("writer", {})


def _page(after: int, limit: int | None) -> dict[str, Any]:
    params: dict[str, Any] = {"after": after}
    if limit is not None:
        params["limit"] = limit
    return params


class _Base:
    """What both clients hold: where the workspace is, the key, and the retry policy."""

    def __init__(
        self,
        url: str,
        workspace: str,
        key: str,
        *,
        retries: int = 3,
        reconnect_delay: float = 0.2,
    ) -> None:
        self.url = url.rstrip("/")
        self.workspace = workspace
        self.base = f"{self.url}/w/{quote(workspace, safe='')}"
        self.key = key
        self.retries = retries
        self.reconnect_delay = reconnect_delay
        self._next_id = 0

    @property
    def _headers(self) -> dict[str, str]:
        return {"authorization": f"Bearer {self.key}"}

    def _envelope(self, method: str, params: Mapping[str, Any]) -> dict[str, Any]:
        self._next_id += 1
        return {"jsonrpc": "2.0", "id": self._next_id, "method": method, "params": dict(params)}

    def _wait(self, attempt: int, error: BaseException, method: str, params: Mapping[str, Any]) -> float | None:
        """Seconds to wait before sending again, or ``None`` when it is not safe (or too late)."""
        if attempt >= self.retries:
            return None
        if isinstance(error, BatonError):
            if not error.retry_safe:
                return None
            if error.retry_after_ms is not None:
                return float(error.retry_after_ms) / 1000
        elif not _repeatable(method, params):
            return None
        return min(0.1 * 2.0**attempt, 2.0)

    def _mcp_url(self, thread: str | None) -> str:
        return f"{self.base}/mcp" + (f"?as={quote(thread, safe='')}" if thread else "")


class AsyncClient(_Base, _Methods[Awaitable[Any]]):
    """A workspace of a running ``baton serve``, on asyncio.

    ``url`` (``http://127.0.0.1:7410``), ``workspace``, ``key`` (a key of the workspace). A
    request the server refused is raised as ``BatonError``. It is sent again only where that is
    safe: when the server says so (``BatonError.retry_safe``), or after a transport failure for
    reads and for commands with an ``idempotency_key`` — at most ``retries`` times.
    """

    def __init__(
        self,
        url: str,
        workspace: str,
        key: str,
        *,
        retries: int = 3,
        reconnect_delay: float = 0.2,
        http: httpx.AsyncClient | None = None,
    ) -> None:
        super().__init__(url, workspace, key, retries=retries, reconnect_delay=reconnect_delay)
        self.http = http or httpx.AsyncClient(timeout=httpx.Timeout(30.0, read=None))

    async def _rpc(self, method: str, params: Mapping[str, Any]) -> Any:
        attempt = 0
        while True:
            try:
                response = await self.http.post(f"{self.base}/rpc", json=self._envelope(method, params), headers=self._headers)
                return _answer(_parse(response))
            except (BatonError, httpx.TransportError) as e:
                wait = self._wait(attempt, e, method, params)
                if wait is None:
                    raise
            attempt += 1
            await asyncio.sleep(wait)

    def tools(self, thread: str, bot: str | None = None) -> AsyncTools:
        """Baton's tools as ``thread`` (of ``bot``), one typed method each."""
        caller = Caller(thread=thread, bot=bot) if bot else Caller(thread=thread)
        return AsyncTools(lambda name, args: self.call(name, args, caller))

    @property
    def inputs(self) -> AsyncInputs:
        """Every host input, one typed method each."""
        return AsyncInputs(lambda name, args: self.host(name, args))

    async def batch(self, requests: Sequence[Request]) -> list[Any]:
        """Sends ``requests`` as one JSON-RPC batch and answers in their order: each result, or
        the ``BatonError`` it failed with (not raised). Consecutive ``call`` and ``host``
        requests commit in one transaction."""
        envelopes = [self._envelope(r.method, r.params) for r in requests]
        attempt = 0
        while True:
            try:
                response = await self.http.post(f"{self.base}/rpc", json=envelopes, headers=self._headers)
                return _batch_answers(envelopes, _parse(response))
            except BatonError as e:  # the whole batch refused (rate, key): nothing of it ran
                if attempt >= self.retries or e.retry_after_ms is None:
                    raise
                attempt += 1
                await asyncio.sleep(e.retry_after_ms / 1000)

    def follow_events(self, cursor: Cursor | int = 0) -> AsyncIterator[Event]:
        """The log as it commits (host key), from after ``cursor``: every record once, in
        order, across reconnects and server restarts."""
        return self._follow("events", cursor)

    def follow_effects(self, cursor: Cursor | int = 0) -> AsyncIterator[Event]:
        """The effects this key sees, from after ``cursor`` (see ``follow_events``). With a
        ``FileCursor``, each effect's number is on disk before it is handed over, so a restarted
        follower is handed nothing twice."""
        return self._follow("effects", cursor)

    async def _follow(self, stream: str, cursor: Cursor | int) -> AsyncIterator[Event]:
        at = MemoryCursor(cursor) if isinstance(cursor, int) else cursor
        while True:
            after = at.load()
            headers = {**self._headers, "last-event-id": str(after)}
            try:
                async with aconnect_sse(self.http, "GET", f"{self.base}/{stream}", headers=headers) as source:
                    if source.response.status_code != 200:
                        text = (await source.response.aread()).decode(errors="replace")
                        refusal = _stream_refusal(source.response, text)
                        if refusal.name != "rate_limited":
                            raise refusal
                    else:
                        async for sse in source.aiter_sse():
                            event = _event(sse, after)
                            if event is None:
                                continue
                            at.save(event.seq)
                            after = event.seq
                            yield event
            except (httpx.TransportError, httpx.StreamError):
                pass
            # The stream ended (the server restarted or went away): resume after the last event.
            await asyncio.sleep(self.reconnect_delay)

    def mcp_url(self, thread: str | None = None) -> str:
        """The workspace's MCP endpoint, bound to ``thread`` when given (``?as=``)."""
        return self._mcp_url(thread)

    async def aclose(self) -> None:
        await self.http.aclose()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


class Client(_Base, _Methods[Any]):
    """The blocking twin of ``AsyncClient``: the same methods, the same errors and retries."""

    def __init__(
        self,
        url: str,
        workspace: str,
        key: str,
        *,
        retries: int = 3,
        reconnect_delay: float = 0.2,
        http: httpx.Client | None = None,
    ) -> None:
        super().__init__(url, workspace, key, retries=retries, reconnect_delay=reconnect_delay)
        self.http = http or httpx.Client(timeout=httpx.Timeout(30.0, read=None))

    def _rpc(self, method: str, params: Mapping[str, Any]) -> Any:
        attempt = 0
        while True:
            try:
                response = self.http.post(f"{self.base}/rpc", json=self._envelope(method, params), headers=self._headers)
                return _answer(_parse(response))
            except (BatonError, httpx.TransportError) as e:
                wait = self._wait(attempt, e, method, params)
                if wait is None:
                    raise
            attempt += 1
            time.sleep(wait)

    def tools(self, thread: str, bot: str | None = None) -> Tools:
        """Baton's tools as ``thread`` (of ``bot``), one typed method each."""
        caller = Caller(thread=thread, bot=bot) if bot else Caller(thread=thread)
        return Tools(lambda name, args: self.call(name, args, caller))

    @property
    def inputs(self) -> Inputs:
        """Every host input, one typed method each."""
        return Inputs(lambda name, args: self.host(name, args))

    def batch(self, requests: Sequence[Request]) -> list[Any]:
        """See ``AsyncClient.batch``."""
        envelopes = [self._envelope(r.method, r.params) for r in requests]
        attempt = 0
        while True:
            try:
                response = self.http.post(f"{self.base}/rpc", json=envelopes, headers=self._headers)
                return _batch_answers(envelopes, _parse(response))
            except BatonError as e:
                if attempt >= self.retries or e.retry_after_ms is None:
                    raise
                attempt += 1
                time.sleep(e.retry_after_ms / 1000)

    def follow_events(self, cursor: Cursor | int = 0) -> Iterator[Event]:
        """See ``AsyncClient.follow_events``."""
        return self._follow("events", cursor)

    def follow_effects(self, cursor: Cursor | int = 0) -> Iterator[Event]:
        """See ``AsyncClient.follow_effects``."""
        return self._follow("effects", cursor)

    def _follow(self, stream: str, cursor: Cursor | int) -> Iterator[Event]:
        at = MemoryCursor(cursor) if isinstance(cursor, int) else cursor
        while True:
            after = at.load()
            headers = {**self._headers, "last-event-id": str(after)}
            try:
                with connect_sse(self.http, "GET", f"{self.base}/{stream}", headers=headers) as source:
                    if source.response.status_code != 200:
                        refusal = _stream_refusal(source.response, source.response.read().decode(errors="replace"))
                        if refusal.name != "rate_limited":
                            raise refusal
                    else:
                        for sse in source.iter_sse():
                            event = _event(sse, after)
                            if event is None:
                                continue
                            at.save(event.seq)
                            after = event.seq
                            yield event
            except (httpx.TransportError, httpx.StreamError):
                pass
            time.sleep(self.reconnect_delay)

    def mcp_url(self, thread: str | None = None) -> str:
        """See ``AsyncClient.mcp_url``."""
        return self._mcp_url(thread)

    def close(self) -> None:
        self.http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _batch_answers(envelopes: list[dict[str, Any]], body: Any) -> list[Any]:
    """A batch's answers in the order of its requests: results, or ``BatonError``s."""
    if isinstance(body, Mapping):  # one error for the whole batch
        _answer(body)
    if not isinstance(body, list):
        raise BatonError(-32603, f"the server's answer to a batch is not a list: {body!r}", name="transport")
    by_id: dict[Any, Any] = {}
    for item in body:
        if isinstance(item, Mapping):
            try:
                by_id[item.get("id")] = _answer(item)
            except BatonError as e:
                by_id[item.get("id")] = e
    return [by_id.get(e["id"], BatonError(-32603, "no answer to this request", name="transport")) for e in envelopes]
