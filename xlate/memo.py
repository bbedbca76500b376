"""Bounded per-process memos.

Translations repeat what other shaders already had: names (``r0``, CTAB
names), their SPIR-V words, float constants, access records, decoded
instructions.  A module-level dict remembers such a pure function's answers
for the process; ``remember`` stores one and empties the dict first when it
is full, so hostile or merely endless input cannot grow it without bound.
What is stored must never be changed afterwards (frozen dataclasses,
tuples, strings): every later shader is handed the same object.
"""

from __future__ import annotations

from typing import TypeVar

T = TypeVar("T")


def remember(memo: dict, key, value: T, limit: int) -> T:
    """``memo[key] = value`` (emptying ``memo`` first when it holds
    ``limit`` entries); returns ``value``.  Callers look ``key`` up with
    ``memo.get`` themselves: a hit must cost no call."""
    if len(memo) >= limit:
        memo.clear()
    memo[key] = value
    return value
