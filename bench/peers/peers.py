"""The delegation cycle on two durable peers Baton is compared with (issue 26 item 2), each
behind a small HTTP server so that one Node client drives every system the same way.

    python peers.py dbos DIR       # DBOS 3.4, its system database in SQLite
    python peers.py langgraph DIR  # LangGraph 1.2, its SQLite checkpointer, durability="sync"

The cycle is three requests, as Baton's batched cycle is (bench/peers/run.mjs):
  POST /start   {"id"}  the parent thread opened and the handoff created
  POST /finish  {"id"}  the child's activity, its answer, its report to the parent, the
                        parent's turn end
  POST /outcome {"id"}  the handoff's outcome read back
Each peer is written the way its own documentation writes such a thing: a DBOS workflow with
one step per request, a LangGraph graph that waits for the child with `interrupt()` and is
resumed with `Command(resume=...)`. Both answer only after their SQLite commits, which fsync
(SQLite's default `synchronous=FULL`; DBOS sets no pragma that lowers it, LangGraph's saver
uses WAL, where FULL syncs the log at each commit). run.mjs counts the fsyncs per cycle.

Prints "listening on http://127.0.0.1:PORT" once it serves. Loopback only.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Dict

Handler = Callable[[str], Dict[str, Any]]


def dbos_cycle(directory: str) -> Dict[str, Handler]:
    from dbos import DBOS, SetWorkflowID

    DBOS(
        config={
            "name": "baton-peer-bench",
            "system_database_url": f"sqlite:///{os.path.join(directory, 'dbos.sqlite')}",
            "log_level": "WARNING",
        }
    )

    @DBOS.step()
    def open_and_hand_off(parent: str) -> Dict[str, Any]:
        return {"parent": parent, "handoff": {"task": "Review the model", "target": "adam", "status": "running"}}

    @DBOS.workflow()
    def start(parent: str) -> Dict[str, Any]:
        return open_and_hand_off(parent)

    @DBOS.step()
    def child_turn(parent: str) -> Dict[str, Any]:
        return {
            "activity": {"tool": "web_search"},
            "response": "Two risks remain.",
            "report": {"to": parent, "body": "Done: two risks remain."},
            "status": "completed",
            "turn_ended": True,
        }

    @DBOS.workflow()
    def finish(parent: str) -> Dict[str, Any]:
        return child_turn(parent)

    DBOS.launch()

    def run_start(p: str) -> Dict[str, Any]:
        with SetWorkflowID(f"start-{p}"):
            return start(p)

    def run_finish(p: str) -> Dict[str, Any]:
        with SetWorkflowID(f"finish-{p}"):
            return finish(p)

    def outcome(p: str) -> Dict[str, Any]:
        done: Dict[str, Any] = DBOS.retrieve_workflow(f"finish-{p}").get_result()
        return {"status": done["status"], "report": done["report"]["body"]}

    return {"start": run_start, "finish": run_finish, "outcome": outcome}


def langgraph_cycle(directory: str) -> Dict[str, Handler]:
    import sqlite3
    from typing import TypedDict

    from langgraph.checkpoint.sqlite import SqliteSaver
    from langgraph.graph import END, START, StateGraph
    from langgraph.types import Command, interrupt

    class Cycle(TypedDict, total=False):
        parent: str
        handoff: Dict[str, Any]
        activity: Dict[str, Any]
        response: str
        report: Dict[str, Any]
        status: str
        turn_ended: bool

    def hand_off(state: Cycle) -> Cycle:
        return {"handoff": {"task": "Review the model", "target": "adam"}, "status": "running"}

    def child(state: Cycle) -> Cycle:
        turn = interrupt({"handoff": state["handoff"]})
        return {
            "activity": turn["activity"],
            "response": turn["response"],
            "report": {"to": state["parent"], "body": turn["report"]},
            "status": "completed",
            "turn_ended": True,
        }

    g = StateGraph(Cycle)
    g.add_node("hand_off", hand_off)
    g.add_node("child", child)
    g.add_edge(START, "hand_off")
    g.add_edge("hand_off", "child")
    g.add_edge("child", END)
    conn = sqlite3.connect(os.path.join(directory, "langgraph.sqlite"), check_same_thread=False)
    graph = g.compile(checkpointer=SqliteSaver(conn))

    def config(p: str) -> Any:
        return {"configurable": {"thread_id": p}}

    def start(p: str) -> Dict[str, Any]:
        graph.invoke({"parent": p}, config(p), durability="sync")
        return {"parent": p}

    def finish(p: str) -> Dict[str, Any]:
        turn = {"activity": {"tool": "web_search"}, "response": "Two risks remain.", "report": "Done: two risks remain."}
        out = graph.invoke(Command(resume=turn), config(p), durability="sync")
        return {"status": out["status"]}

    def outcome(p: str) -> Dict[str, Any]:
        values = graph.get_state(config(p)).values
        return {"status": values["status"], "report": values["report"]["body"]}

    return {"start": start, "finish": finish, "outcome": outcome}


def serve(handlers: Dict[str, Handler]) -> None:
    class Http(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # Headers and body go out as two writes: without this, Nagle and delayed ACKs hold the
        # second for 40 ms, which would measure the kernel, not the peer.
        disable_nagle_algorithm = True

        def do_POST(self) -> None:  # noqa: N802 (the standard library's name)
            body = json.loads(self.rfile.read(int(self.headers.get("content-length", "0"))))
            name = self.path.strip("/")
            try:
                out, code = handlers[name](body["id"]), 200
            except Exception as e:  # the client prints it and fails the run
                out, code = {"error": f"{type(e).__name__}: {e}"}, 500
            data = json.dumps(out).encode()
            self.send_response(code)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Http)
    server.daemon_threads = True
    print(f"listening on http://127.0.0.1:{server.server_address[1]}", flush=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    threading.Event().wait()


if __name__ == "__main__":
    which, directory = sys.argv[1], sys.argv[2]
    serve({"dbos": dbos_cycle, "langgraph": langgraph_cycle}[which](directory))
