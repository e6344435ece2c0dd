"""Waiting in Pilot tests: let frames pass until a condition holds."""
from __future__ import annotations

import time


async def wait_for(pilot, cond, timeout: float = 10.0, step: float = 0.02) -> None:
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        await pilot.pause(step)
        if cond():
            return
    raise AssertionError("condition not met in time")
