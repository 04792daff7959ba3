"""The worker's replies, read defensively: whatever bytes arrive, the checker gets a dict or a verdict.

The worker is hostile, so a reply may be nested deep enough to make a JSON
parser recurse past Python's limit, may not be UTF-8, or may hold values of
the wrong types.  None of that may crash the checker: each is a protocol
violation, and the report says so.
"""
from __future__ import annotations

import json

__all__ = ["WorkerEnded", "decode_reply", "text_field", "text_list_field"]


class WorkerEnded(Exception):
    """The worker stopped answering as it must; `how` says why, in the report's words."""

    def __init__(self, how: str, phase: str, limit: float = 0.0, output: str = ""):
        super().__init__(how)
        self.how, self.phase, self.limit, self.output = how, phase, limit, output


def decode_reply(line) -> dict | None:
    """A reply line as a JSON object, or None for anything else (never an exception).

    The line is the worker's, so hostile: deep nesting makes ``json.loads``
    recurse past Python's limit, and bytes that are not UTF-8 fail to decode.
    """
    if not isinstance(line, (bytes, str)):
        return None
    try:
        reply = json.loads(line)
    except (ValueError, RecursionError, MemoryError):  # UnicodeDecodeError is a ValueError
        return None
    return reply if isinstance(reply, dict) else None


def text_field(reply: dict, key: str, phase: str) -> str:
    """`reply[key]` when it is text; a protocol violation (WorkerEnded) when it is anything else."""
    value = reply.get(key)
    if not isinstance(value, str):
        raise WorkerEnded(f"protocol: a reply whose {key!r} is {type(value).__name__}, not text", phase)
    return value


def text_list_field(reply: dict, key: str, phase: str, most: int = 64) -> list[str]:
    """`reply[key]` when it is a list of at most `most` texts; a protocol violation otherwise."""
    value = reply.get(key)
    if not isinstance(value, list) or not 0 < len(value) <= most or not all(isinstance(v, str) for v in value):
        raise WorkerEnded(f"protocol: a reply whose {key!r} is not a list of 1 to {most} texts", phase)
    return value
