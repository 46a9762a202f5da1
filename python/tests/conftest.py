"""What the Python package's tests share: a `baton serve` of their own on loopback (the binary
the test command built, or BATON_BIN), a fresh workspace with a host key per test."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from baton import LocalServer

ROOT = Path(__file__).resolve().parents[2]
os.environ.setdefault("BATON_BIN", str(ROOT / "target" / "debug" / "baton"))


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LocalServer]:
    with LocalServer(tmp_path / "baton.db") as s:
        yield s


@pytest.fixture
def workspace(server: LocalServer) -> tuple[str, str]:
    """A new workspace ``w1`` and a host key for it."""
    return server.workspace("w1")
