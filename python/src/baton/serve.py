"""A ``baton serve`` of this process's own, for examples and tests: started on a free loopback
port over a database in a temporary directory (or one given), stopped with the process."""

from __future__ import annotations

import os
import re
import secrets
import shutil
import signal
import subprocess
import tempfile
import threading
from pathlib import Path
from typing import IO

from .client import Client


def find_baton() -> str:
    """The ``baton`` command: ``$BATON_BIN``, else ``baton`` on ``PATH``."""
    found = os.environ.get("BATON_BIN") or shutil.which("baton")
    if not found:
        raise FileNotFoundError("no `baton` command: set BATON_BIN or put baton on PATH (cargo build -p baton)")
    return found


class LocalServer:
    """``baton serve`` as a child process. ``start()`` waits until it listens; ``url`` is then
    where, ``admin_key`` its admin key. ``workspace(name)`` creates a workspace and a host key
    for it. ``stop()`` ends it (SIGTERM, or ``kill()`` for SIGKILL); the same database can be
    served again by ``start()``."""

    def __init__(
        self, db: str | os.PathLike[str] | None = None, *, binary: str | None = None, extra: list[str] | None = None
    ) -> None:
        self._tmp = None if db else tempfile.TemporaryDirectory(prefix="baton-serve-")
        self.db = str(db) if db else str(Path(self._tmp.name if self._tmp else ".") / "baton.db")
        self.binary = binary or find_baton()
        self.extra = extra or []
        self.admin_key = secrets.token_hex(16)
        self.url = ""
        self.process: subprocess.Popen[str] | None = None
        self.stderr: list[str] = []

    def start(self, addr: str = "127.0.0.1:0", timeout: float = 30.0) -> LocalServer:
        env = {**os.environ, "BATON_ADMIN_KEY": self.admin_key, "RUST_LOG": os.environ.get("RUST_LOG", "warn")}
        argv = [self.binary, "serve", "--db", self.db, "--addr", addr, *self.extra]
        self.process = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        found: list[str] = []
        ready = threading.Event()
        assert self.process.stdout is not None and self.process.stderr is not None

        def read_out(out: IO[str]) -> None:
            for line in out:
                m = re.search(r"listening on (http://[\d.:]+)", line)
                if m and not found:
                    found.append(m.group(1))
                    ready.set()
            ready.set()

        def read_err(err: IO[str]) -> None:
            for line in err:
                self.stderr.append(line)

        threading.Thread(target=read_out, args=(self.process.stdout,), daemon=True).start()
        threading.Thread(target=read_err, args=(self.process.stderr,), daemon=True).start()
        if not ready.wait(timeout) or not found:
            self.kill()
            raise RuntimeError(f"baton serve did not start: {''.join(self.stderr)}")
        self.url = found[0]
        return self

    def workspace(self, name: str) -> tuple[str, str]:
        """Creates workspace ``name`` (if new) and a host key for it: ``(name, key)``."""
        with Client(self.url, name, self.admin_key) as admin:
            admin.create_workspace()
            key: str = admin.create_key("host")["key"]
        return name, key

    def stop(self, sig: int = signal.SIGTERM) -> None:
        if self.process and self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def kill(self) -> None:
        self.stop(signal.SIGKILL)

    def close(self) -> None:
        self.stop()
        if self._tmp:
            self._tmp.cleanup()

    def __enter__(self) -> LocalServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()
