"""Where a stream follower keeps the number of the last event it handed over, so that it
resumes after it: in memory, or in a file that survives the process."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Protocol


class Cursor(Protocol):
    """The last event handed over: ``load`` it when (re)connecting, ``save`` each new one."""

    def load(self) -> int: ...

    def save(self, seq: int) -> None: ...


class MemoryCursor:
    """A cursor for this process only."""

    def __init__(self, seq: int = 0) -> None:
        self.seq = seq

    def load(self) -> int:
        return self.seq

    def save(self, seq: int) -> None:
        self.seq = seq


class FileCursor:
    """A cursor kept in a file: each ``save`` is written to a temporary file, synced, and renamed
    over the old one, so a process killed at any point leaves the old number or the new one."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.seq = self._read()

    def _read(self) -> int:
        try:
            text = self.path.read_text().strip()
        except FileNotFoundError:
            return 0
        return int(text) if text.isdigit() else 0

    def load(self) -> int:
        return self.seq

    def save(self, seq: int) -> None:
        tmp = self.path.with_name(self.path.name + ".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            os.write(fd, str(seq).encode())
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, self.path)
        # the rename itself, on disk
        dir_fd = os.open(self.path.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
        self.seq = seq
