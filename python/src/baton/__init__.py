"""Baton for Python: a typed client for ``baton serve`` (``Client``, ``AsyncClient``), stream
followers with exact resume (``follow_events``, ``follow_effects`` and a ``FileCursor``), the
host driver on asyncio (``Host``), and, in ``baton.agents``, the adapter for the OpenAI Agents
SDK. The types of every tool, host input and effect are in ``baton.types``, generated from the
schemas ``baton schemas`` publishes."""

from .client import AsyncClient, Caller, Client, Event, Request
from .cursor import Cursor, FileCursor, MemoryCursor
from .errors import BatonError
from .host import BatonTool, Host, Question, Report, Steering, Turn, TurnRunner, tool_definitions
from .serve import LocalServer

__all__ = [
    "AsyncClient",
    "BatonError",
    "BatonTool",
    "Caller",
    "Client",
    "Cursor",
    "Event",
    "FileCursor",
    "Host",
    "LocalServer",
    "MemoryCursor",
    "Question",
    "Report",
    "Request",
    "Steering",
    "Turn",
    "TurnRunner",
    "tool_definitions",
]
