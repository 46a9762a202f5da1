"""baton.Client / baton.AsyncClient against a real `baton serve`: errors with Baton's code, name,
field and rule; batches (one transaction, each answer in order); idempotency keys; the key
lifecycle; retries only where the server says they are safe; the typed tool and host-input
methods; and the event and effect followers resuming exactly, across a server restart too."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from baton import AsyncClient, BatonError, Client, FileCursor, LocalServer, Request

LEAD = {"thread": "chat_main", "bot": "lead"}


def setup(client: Client) -> None:
    client.host("register_agent", {"bot_id": "lead"})
    client.host("register_agent", {"bot_id": "adam"})
    client.host("open_thread", {"thread_id": "chat_main", "bot_id": "lead"})


def test_g1_errors_carry_code_name_field_and_change_nothing(server: LocalServer, workspace: tuple[str, str]) -> None:
    with Client(server.url, *workspace) as client:
        setup(client)
        before = client.log()["next_after"]
        with pytest.raises(BatonError) as e:
            client.call("handoff", {"target_bot": "adam"}, LEAD)
        assert (e.value.code, e.value.name, e.value.field) == (-32602, "invalid_params", "task")
        with pytest.raises(BatonError) as e:
            client.call("handoff_status", {"handoff_id": "h_nope"}, LEAD)
        assert (e.value.code, e.value.name) == (-32001, "not_found")
        with pytest.raises(BatonError) as e:
            client.host("no_such_input")
        assert e.value.code == -32601
        assert not e.value.retry_safe
        assert client.log()["next_after"] == before, "a refused command appends nothing"
    with Client(server.url, workspace[0], "not-a-key") as stranger, pytest.raises(BatonError) as e:
        stranger.list_keys()
    assert e.value.name == "forbidden"


def test_typed_methods_and_batches(server: LocalServer, workspace: tuple[str, str]) -> None:
    with Client(server.url, *workspace) as client:
        answers = client.batch(
            [
                Request.host("register_agent", {"bot_id": "lead"}),
                Request.host("register_agent", {"bot_id": "adam"}),
                Request.host("open_thread", {"thread_id": "chat_main", "bot_id": "lead"}),
                Request.call("handoff", {"task": "Review", "target_bot": "adam"}, LEAD),
                Request.call("handoff", {"target_bot": "adam"}, LEAD),
                Request("log", {"after": 0}),
            ]
        )
        assert [type(a).__name__ for a in answers] == ["dict", "dict", "dict", "dict", "BatonError", "dict"]
        assert answers[3]["success"] is True
        assert answers[4].field == "task"
        assert len(answers[5]["records"]) == 4, "the four accepted commands, in order"
        tools = client.tools("chat_main", "lead")
        status = tools.handoff_status(handoff_id=answers[3]["handoff_id"])
        assert status["handoff_id"] == answers[3]["handoff_id"]
        assert client.inputs.get_thread(thread_id="chat_main")["thread"]["bot_id"] == "lead"


def test_idempotency_keys_answer_once(server: LocalServer, workspace: tuple[str, str]) -> None:
    with Client(server.url, *workspace) as client:
        setup(client)
        args = {"task": "Review", "target_bot": "adam"}
        first = client.call("handoff", args, LEAD, idempotency_key="review-1")
        again = client.call("handoff", args, LEAD, idempotency_key="review-1")
        assert first == again
        assert len(client.call("handoff_list", {}, LEAD)["handoffs"]) == 1, "run once"
        with pytest.raises(BatonError) as e:
            client.call("handoff", {**args, "task": "Other"}, LEAD, idempotency_key="review-1")
        assert e.value.name == "invalid_params"


def test_keys_create_list_revoke_rotate(server: LocalServer, workspace: tuple[str, str]) -> None:
    name = workspace[0]
    with Client(server.url, name, server.admin_key) as admin:
        made = admin.create_key("bot:lead")
        assert {k["key_id"] for k in admin.list_keys()["keys"]} >= {made["key_id"]}
        assert "key" not in admin.list_keys()["keys"][0], "never the keys"
        with Client(server.url, name, made["key"]) as bot:
            bot.effects()
            admin.revoke_key(made["key_id"])
            with pytest.raises(BatonError) as e:
                bot.effects()
            assert e.value.name == "forbidden"
        host = admin.create_key("host")
        rotated = admin.rotate_key(host["key_id"])
        assert rotated["replaced"]["key_id"] == host["key_id"]
        with Client(server.url, name, rotated["key"]) as new:
            new.log()
        with Client(server.url, name, host["key"]) as old, pytest.raises(BatonError):
            old.log()
        with pytest.raises(BatonError) as e:
            admin.revoke_key("nope")
        assert e.value.field == "key_id"


def test_retries_only_where_the_server_says_so(tmp_path: Path) -> None:
    with LocalServer(tmp_path / "b.db", extra=["--rate-limit", "1"]) as server:
        name, key = server.workspace("w1")
        with Client(server.url, name, key, retries=0) as hasty:
            with pytest.raises(BatonError) as e:
                for _ in range(10):
                    hasty.log()
            assert e.value.name == "rate_limited" and e.value.retry_safe and e.value.retry_after_ms is not None
        with Client(server.url, name, key, retries=20) as patient:
            for _ in range(5):
                patient.log()  # each over the rate waits as told, then goes through


def test_followers_resume_exactly_across_a_server_restart(server: LocalServer, workspace: tuple[str, str], tmp_path: Path) -> None:
    cursor_file = tmp_path / "events.cursor"

    async def go() -> list[int]:
        seen: list[int] = []
        async with AsyncClient(server.url, *workspace, reconnect_delay=0.05) as client:
            got = asyncio.Event()
            want = 0

            async def follow() -> None:
                async for event in client.follow_events(FileCursor(cursor_file)):
                    seen.append(event.seq)
                    assert event.data["seq"] == event.seq
                    if len(seen) >= want:
                        got.set()

            task = asyncio.ensure_future(follow())
            await client.host("register_agent", {"bot_id": "lead"})
            await client.host("open_thread", {"thread_id": "chat_main", "bot_id": "lead"})
            want = 2
            await asyncio.wait_for(got.wait(), 10)
            port = server.url.rsplit(":", 1)[1]
            server.stop()
            server.start(f"127.0.0.1:{port}")
            got.clear()
            await client.host("register_agent", {"bot_id": "adam"})
            await client.call("handoff", {"task": "Review", "target_bot": "adam"}, LEAD)
            want = 4
            await asyncio.wait_for(got.wait(), 10)
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        return seen

    seen = asyncio.run(go())
    assert seen == [1, 2, 3, 4], "every record once, in order, across the restart"
    assert FileCursor(cursor_file).load() == 4
    # A follower started on the same cursor file gets only what came after it.
    with Client(server.url, *workspace) as client:
        client.host("register_agent", {"bot_id": "eve"})
        later = next(iter(client.follow_events(FileCursor(cursor_file))))
        assert later.seq == 5


def test_effects_follower_hands_over_each_effect_once(server: LocalServer, workspace: tuple[str, str]) -> None:
    with Client(server.url, *workspace) as client:
        setup(client)
        client.call("handoff", {"task": "Review", "target_bot": "adam"}, LEAD)
        stream = client.follow_effects(0)
        first = next(stream)
        assert first.data["effect"] == "start_child" and first.data["bot_id"] == "adam"
        page: dict[str, Any] = client.effects(after=0)
        assert [e["seq"] for e in page["effects"]] == [first.seq]


def test_the_client_has_every_method_the_server_lists_and_the_readme_names_them() -> None:
    """`baton serve --help` lists the JSON-RPC methods; each is a method of both clients and
    python/README.md names exactly those (a method added to the server fails this test)."""
    import os
    import re
    import subprocess

    help = subprocess.run([os.environ["BATON_BIN"], "serve", "--help"], capture_output=True, text=True, check=True)
    text = " ".join((help.stdout + help.stderr).split())
    listed = text[text.index("methods:") : text.index("call and host take")]
    served = set(re.findall(r"([a-z]+(?:_[a-z]+)*) [({]", listed))
    assert {"call", "host", "create_key", "effects", "log", "export", "writer"} <= served, served
    for name in served:
        assert callable(getattr(Client, name, None)) and callable(getattr(AsyncClient, name, None)), name
    readme = " ".join((Path(__file__).resolve().parents[1] / "README.md").read_text().split())
    said = readme[readme.index("every JSON-RPC method of `baton serve`:") :].split(".")[0]
    assert set(re.findall(r"`([a-z_]+)`", said)) - {"batch"} == served, said
