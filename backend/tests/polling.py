"""Polling helpers for tests that read data arriving asynchronously in the real backends."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

Value = TypeVar("Value")


async def eventually(
    read: Callable[[], Awaitable[Value]], satisfied: Callable[[Value], bool], timeout_s: float = 60
) -> Value:
    """Poll `read` until its value satisfies (data arrives asynchronously); return the last value."""
    deadline = time.monotonic() + timeout_s
    value = await read()
    while not satisfied(value) and time.monotonic() < deadline:
        await asyncio.sleep(1)
        value = await read()
    return value


def equals(expected: float) -> Callable[[float | None], bool]:
    return lambda value: value == expected
