"""The official A2A Python SDK (a2a-sdk) delegating to a Baton agent: a whole delegation, a
streamed one, a question and its answer, a push config, a cancel, a list. Usage: python a2a_client.py
BASE_URL KEY [BINDING], BINDING being JSONRPC (the default), HTTP+JSON or GRPC (the key rides
in each call's metadata, added by an interceptor), and BASE_URL is where the agent's card is found (the server's root with
--a2a-default, or http://host/w/WS/a2a/AGENT/) and the agent is a fixture agent (baton serve
--fixture-agent). Prints one line per step; exits non-zero on a mismatch."""
import asyncio
import sys

import grpc
import httpx
from a2a.client import ClientConfig, create_client
from a2a.types import (
    CancelTaskRequest,
    DeleteTaskPushNotificationConfigRequest,
    GetTaskPushNotificationConfigRequest,
    GetTaskRequest,
    ListTaskPushNotificationConfigsRequest,
    ListTasksRequest,
    Message,
    Part,
    Role,
    SendMessageRequest,
    TaskPushNotificationConfig,
    TaskState,
)


def say(text, task=None, context=None):
    m = Message(message_id=f"py-{abs(hash((text, task)))}", role=Role.ROLE_USER, parts=[Part(text=text)])
    if task:
        m.task_id = task
    if context:
        m.context_id = context
    return SendMessageRequest(message=m)


async def task_of(client, request):
    """The task the server answered with (the last one in the response stream)."""
    last = None
    async for event in client.send_message(request):
        if event.HasField("task"):
            last = event.task
    assert last is not None, "the server answered with a task"
    return last


def keyed(details, key):
    """A call's details with the key added to its metadata (gRPC's way to carry credentials
    on a plaintext loopback channel)."""
    return details._replace(metadata=list(details.metadata or []) + [("authorization", f"Bearer {key}")])


# grpc.aio files an interceptor under the first kind it is: one class per kind of call.
class KeyedUnary(grpc.aio.UnaryUnaryClientInterceptor):
    def __init__(self, key):
        self.key = key

    async def intercept_unary_unary(self, continuation, details, request):
        return await continuation(keyed(details, self.key), request)


class KeyedStream(grpc.aio.UnaryStreamClientInterceptor):
    def __init__(self, key):
        self.key = key

    async def intercept_unary_stream(self, continuation, details, request):
        return await continuation(keyed(details, self.key), request)


def check(cond, what):
    if not cond:
        print(f"FAIL {what}")
        sys.exit(1)
    print(f"ok {what}")


async def main(base, key, binding):
    headers = {"Authorization": f"Bearer {key}"}
    async with httpx.AsyncClient(headers=headers, timeout=10) as http:
        channel = lambda url: grpc.aio.insecure_channel(url, interceptors=[KeyedUnary(key), KeyedStream(key)])  # noqa: E731
        client = await create_client(
            base,
            client_config=ClientConfig(
                streaming=False, httpx_client=http, supported_protocol_bindings=[binding], grpc_channel_factory=channel
            ),
            resolver_http_kwargs={"headers": headers},
        )
        done = await task_of(client, say("complete: the Python client was here"))
        check(done.status.state == TaskState.TASK_STATE_COMPLETED, "a whole delegation completes")
        check(done.artifacts[0].parts[0].text == "the Python client was here", "its result is the artifact")
        got = await client.get_task(GetTaskRequest(id=done.id))
        check(got.id == done.id and got.status.state == TaskState.TASK_STATE_COMPLETED, "GetTask reads it back")
        asking = await task_of(client, say("ask: which region?"))
        check(asking.status.state == TaskState.TASK_STATE_INPUT_REQUIRED, "a question is INPUT_REQUIRED")
        answered = await task_of(client, say("eu-west-1", task=asking.id, context=asking.context_id))
        check(answered.status.state == TaskState.TASK_STATE_COMPLETED, "the answer completes it")
        rejected = await task_of(client, say("reject: not my area"))
        check(rejected.status.state == TaskState.TASK_STATE_REJECTED, "a rejected task is REJECTED")
        waiting = await task_of(client, say("ask: shall I wait?"))
        # A push config on the live task: set, read, listed, deleted (never posted here: the
        # task is cancelled before its watch returns).
        cfg = TaskPushNotificationConfig(task_id=waiting.id, id="py-cfg", url="https://hooks.example.com/py", token="py-tok")
        made = await client.create_task_push_notification_config(cfg)
        kept = await client.get_task_push_notification_config(
            GetTaskPushNotificationConfigRequest(task_id=waiting.id, id="py-cfg")
        )
        listed = await client.list_task_push_notification_configs(ListTaskPushNotificationConfigsRequest(task_id=waiting.id))
        await client.delete_task_push_notification_config(DeleteTaskPushNotificationConfigRequest(task_id=waiting.id, id="py-cfg"))
        after = await client.list_task_push_notification_configs(ListTaskPushNotificationConfigsRequest(task_id=waiting.id))
        check(
            made.id == kept.id == "py-cfg"
            and kept.token == "py-tok"
            and [c.id for c in listed.configs] == ["py-cfg"]
            and len(after.configs) == 0,
            "a push config is set, read, listed and deleted",
        )
        cancelled = await client.cancel_task(CancelTaskRequest(id=waiting.id))
        check(cancelled.status.state == TaskState.TASK_STATE_CANCELED, "CancelTask cancels")
        listed = await client.list_tasks(ListTasksRequest(page_size=10))
        ids = [t.id for t in listed.tasks]
        check(ids == [waiting.id, rejected.id, asking.id, done.id], f"ListTasks lists the caller's tasks, newest first ({len(ids)})")
        await client.close()
        streamer = await create_client(
            base,
            client_config=ClientConfig(
                streaming=True, httpx_client=http, supported_protocol_bindings=[binding], grpc_channel_factory=channel
            ),
            resolver_http_kwargs={"headers": headers},
        )
        kinds, artifacts, state = [], [], None
        async for event in streamer.send_message(say("stream: gather | draft")):
            kind = event.WhichOneof("payload")
            kinds.append(kind)
            if kind == "artifact_update":
                artifacts.append(event.artifact_update.artifact.artifact_id)
            if kind == "status_update":
                state = event.status_update.status.state
        check(
            kinds == ["task", "artifact_update", "artifact_update", "artifact_update", "status_update"]
            and artifacts == ["plan", "plan", "result"]
            and state == TaskState.TASK_STATE_COMPLETED,
            f"a streamed plan moves step by step and ends COMPLETED ({kinds})",
        )
        streamed = await task_of(streamer, say("complete: streamed to Python"))
        check(
            streamed.status.state == TaskState.TASK_STATE_COMPLETED
            and streamed.artifacts[0].parts[0].text == "streamed to Python",
            "a streamed delegation ends COMPLETED with its result",
        )
        await streamer.close()


asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else "JSONRPC"))
