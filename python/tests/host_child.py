"""A host process for the restart test (test_restart.py): over the workspace of a running
`baton serve` (argv: url workspace key cursor-file), a lead hands work to a worker whose turn
never ends; prints ``RUNNING <turns of the worker started>`` once the worker's turn is live, and
waits to be killed (the test sends SIGKILL)."""

import asyncio
import sys

from baton import AsyncClient, Host, Turn


async def main(url: str, workspace: str, key: str, cursor: str) -> None:
    started = 0

    async def adam(turn: Turn) -> str:
        nonlocal started
        started += 1
        print(f"RUNNING {started}", flush=True)
        await asyncio.Event().wait()
        return "never"

    async def lead(turn: Turn) -> str:
        return "ok"

    client = AsyncClient(url, workspace, key)
    host = Host(client, cursor=cursor)
    await host.agent("lead", lead)
    await host.agent("adam", adam)
    chat = await host.open("lead", thread_id="chat_main")
    await client.call("handoff", {"task": "Summarize the findings", "target_bot": "adam"}, {"thread": chat, "bot": "lead"})
    await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:5]))
