"""A host process on `baton serve` killed with SIGKILL mid-turn, and a new one started on its
cursor file (G3: what was in flight runs again): the first host started the worker once; the
new one is handed no effect the first had (the start_child is not handed over twice),
``recover()`` runs the worker again once, and the handoff completes with nothing lost."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
from pathlib import Path

from baton import AsyncClient, Client, Host, LocalServer, Turn

CHILD = Path(__file__).with_name("host_child.py")


def test_g3_a_host_killed_mid_turn_restarts_on_its_cursor(server: LocalServer, workspace: tuple[str, str], tmp_path: Path) -> None:
    cursor = tmp_path / "effects.cursor"
    child = subprocess.Popen([sys.executable, str(CHILD), server.url, *workspace, str(cursor)], stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None
    line = child.stdout.readline()
    child.send_signal(signal.SIGKILL)
    child.wait(10)
    assert line.strip() == "RUNNING 1", f"the first host started the worker once: {line!r}"
    assert child.returncode == -signal.SIGKILL

    handed: list[str] = []
    runs: list[bool] = []

    async def adam(turn: Turn) -> str:
        runs.append(turn.restarted)
        assert turn.effect is not None and turn.effect["effect"] == "start_child"
        r = turn.effect["report_to"]
        body = {"action": "SEND_MESSAGE", "to_thread_id": r["to_thread_id"], "to_bot_id": r["to_bot_id"], "body": "Findings: two"}
        await next(t for t in turn.tools if t.name == "mailbox_action").execute(body)
        return "Findings: two"

    async def lead(turn: Turn) -> str:
        return "ok"

    async def go() -> None:
        async with AsyncClient(server.url, *workspace) as client:
            async with Host(client, cursor=cursor, on_effect=lambda e: handed.append(e["effect"])) as host:
                await host.agent("lead", lead)
                await host.agent("adam", adam)
                await host.recover()
                await host.idle()

    asyncio.run(go())
    assert runs == [True], "run again once, by recover"
    assert "start_child" not in handed, f"the start_child the first host took is not handed over again: {handed}"
    with Client(server.url, *workspace) as client:
        assert client.call("handoff_list", {}, {"thread": "chat_main", "bot": "lead"})["handoffs"] == [], "completed"
        assert client.host("in_flight")["turns"] == []
