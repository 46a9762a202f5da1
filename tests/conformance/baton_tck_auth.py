"""A pytest plugin that gives the A2A TCK's clients a Baton key.

The TCK has no option for credentials; Baton's agents take a key of their workspace (the
card says so: a bearer scheme). Loaded with `-p baton_tck_auth`, this plugin adds
`Authorization: Bearer $BATON_TCK_KEY` to every request httpx sends to `$BATON_TCK_HOST`
(the server under test) — the card, JSON-RPC, HTTP+JSON and the raw requests some tests
make — and nothing to any other host (the TCK's own webhook receiver); and it adds the same
`authorization` to the metadata its gRPC client sends with every call. Baton's auth is not
weakened: every request still carries a key the server checks.
"""
import os

import httpx

_KEY = os.environ.get("BATON_TCK_KEY", "")
_HOST = os.environ.get("BATON_TCK_HOST", "")


def _authorize(request: httpx.Request) -> None:
    if _KEY and _HOST and str(request.url).startswith(_HOST) and "authorization" not in request.headers:
        request.headers["authorization"] = f"Bearer {_KEY}"


def pytest_configure(config):  # noqa: ARG001 - pytest's hook signature
    if not _KEY or not _HOST:
        raise RuntimeError("baton_tck_auth needs BATON_TCK_KEY and BATON_TCK_HOST")
    send, asend = httpx.Client.send, httpx.AsyncClient.send

    def signed_send(self, request, *args, **kwargs):
        _authorize(request)
        return send(self, request, *args, **kwargs)

    async def signed_asend(self, request, *args, **kwargs):
        _authorize(request)
        return await asend(self, request, *args, **kwargs)

    httpx.Client.send = signed_send
    httpx.AsyncClient.send = signed_asend
    # gRPC: the TCK's client sends one metadata tuple with every call.
    from tck.transport.grpc_client import GrpcClient

    GrpcClient._METADATA = (*GrpcClient._METADATA, ("authorization", f"Bearer {_KEY}"))
