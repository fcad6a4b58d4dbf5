"""Runs a rate schedule's steps (`python -m tracetax.engine.rate_steps PLAN.json`): each step is
an oha process of its own, started at its offset from the schedule's start, so a step begins
on time even while the previous one still waits for its requests in flight (coordinated
omission stays corrected across the boundary: no step's schedule waits for another's backlog).

The engine starts this as the load generator (its own session: stopping it stops every step);
its exit code is the first failing step's, 0 when all succeeded.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import FrameType


def run(plan: list[dict[str, object]]) -> int:
    started = time.monotonic()
    children: list[subprocess.Popen[bytes]] = []

    def stop(signum: int, frame: FrameType | None) -> None:
        for child in children:
            child.kill()
        sys.exit(128 + signum)

    signal.signal(signal.SIGTERM, stop)
    for step in plan:
        time.sleep(max(0.0, started + float(str(step["start_s"])) - time.monotonic()))
        with Path(str(step["log"])).open("wb") as log:
            argv = [str(arg) for arg in step["argv"]]  # type: ignore[attr-defined]
            children.append(subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT))
    codes = [child.wait() for child in children]
    return next((code for code in codes if code), 0)


if __name__ == "__main__":
    sys.exit(run(json.loads(Path(sys.argv[1]).read_text())))
