"""The one error a Baton client raises: Baton's own, or the JSON-RPC protocol's, with its code."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class BatonError(Exception):
    """An error `baton serve` answered (or the transport gave, with `name` ``"transport"``).

    ``code`` is the JSON-RPC code (Baton's codes are JSON-RPC codes, docs/ERRORS.md) and
    ``name`` its stable name (``not_found``, ``invalid_params``, ``forbidden`` …); ``field`` names
    the argument at fault and ``rule`` the rule that refused, where Baton says so. ``data`` is
    whatever else the error carried.
    """

    def __init__(
        self,
        code: int,
        message: str,
        *,
        name: str | None = None,
        field: str | None = None,
        rule: str | None = None,
        data: Any = None,
        retry_after_ms: int | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.name = name
        self.field = field
        self.rule = rule
        self.data = data
        self.retry_after_ms = retry_after_ms

    @classmethod
    def from_answer(cls, error: Mapping[str, Any]) -> BatonError:
        """The error of a JSON-RPC answer (``{"code", "message", "data"?}``)."""
        data = error.get("data")
        extra = data if isinstance(data, Mapping) else {}
        retry_after = extra.get("retry_after_ms")
        return cls(
            int(error.get("code", -32603)),
            str(error.get("message", "")),
            name=_str(extra.get("name")) or _protocol_name(int(error.get("code", 0))),
            field=_str(extra.get("field")),
            rule=_str(extra.get("rule")),
            data=extra.get("data"),
            retry_after_ms=retry_after if isinstance(retry_after, int) else None,
        )

    @property
    def retry_safe(self) -> bool:
        """Whether the server said sending the same request again is safe: it kept nothing of it
        (a writer that stepped down: ``data.retry``) or ran none of it (the key's request rate:
        ``retry_after_ms``). Rule M8's ``rate_limited`` refusal of a message is not one: it
        says when the sender may write again, in ``data.retry_after_seconds``."""
        said_retry = isinstance(self.data, Mapping) and self.data.get("retry") is True
        return said_retry or self.retry_after_ms is not None

    def to_dict(self) -> dict[str, Any]:
        """What a model is shown for a refused tool call: the message, code, name and field."""
        out: dict[str, Any] = {"error": self.message, "code": self.code, "code_name": self.name}
        if self.field is not None:
            out["field"] = self.field
        if self.rule is not None:
            out["rule"] = self.rule
        return out

    def __repr__(self) -> str:
        return f"BatonError(code={self.code}, name={self.name!r}, field={self.field!r}, message={self.message!r})"


def _str(v: Any) -> str | None:
    return v if isinstance(v, str) else None


_PROTOCOL = {
    -32700: "parse_error",
    -32600: "invalid_request",
    -32601: "method_not_found",
    -32602: "invalid_params",
    -32603: "internal_error",
}


def _protocol_name(code: int) -> str | None:
    return _PROTOCOL.get(code)
