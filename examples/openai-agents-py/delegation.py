"""A lead delegates to three workers with the OpenAI Agents SDK; Baton carries the handoffs.
Against the `baton serve` at BATON_URL (BATON_WORKSPACE, a host key in BATON_KEY), or one it
starts. On scripted models (scripted-model.py) unless OPENAI_API_KEY is set: then OPENAI_MODEL
(default gpt-4o-mini), at OPENAI_BASE_URL when set (an OpenAI-compatible endpoint)."""

import asyncio
import os
import runpy
from pathlib import Path

from agents import Agent, set_default_openai_api, set_tracing_disabled

from baton import AsyncClient, Host, LocalServer
from baton.agents import openai_agent

real = os.environ.get("OPENAI_API_KEY") and os.environ.get("OPENAI_MODEL", "gpt-4o-mini")
set_tracing_disabled(not real)
if os.environ.get("OPENAI_BASE_URL"):
    set_default_openai_api("chat_completions")


async def main(url: str, workspace: str, key: str) -> str | None:
    scripted = runpy.run_path(str(Path(__file__).with_name("scripted-model.py")))["scripted_models"]()

    def agent(name: str, instructions: str) -> Agent[None]:
        return Agent(name=name, instructions=instructions, model=real or scripted[name])

    async with AsyncClient(url, workspace, key) as baton, Host(baton) as host:
        await host.agent("lead", openai_agent(agent("lead", "You lead a release. Delegate with handoff.")))
        await host.agent("adam", openai_agent(agent("adam", "You find release risks.")))
        await host.agent("eve", openai_agent(agent("eve", "You check data.")))
        await host.agent("zed", openai_agent(agent("zed", "You benchmark."), on_cancel="abort"))
        chat = await host.open("lead", thread_id="chat_main")
        answer = await host.send(chat, "Plan the release.")
        print(answer)
        await host.idle()
        return answer


if __name__ == "__main__":
    if os.environ.get("BATON_URL"):
        asyncio.run(main(os.environ["BATON_URL"], os.environ["BATON_WORKSPACE"], os.environ["BATON_KEY"]))
    else:
        with LocalServer() as server:
            asyncio.run(main(server.url, *server.workspace("demo")))
