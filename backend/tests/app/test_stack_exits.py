"""What the engine learns of a component that exited mid-round: the native stack's watcher's
record, by the names the engine's probe uses."""

from __future__ import annotations

from pathlib import Path

import pytest

from tracetax.app.runtime import stack_exits_since
from tracetax.native_stack.watch import write_record


def test_exits_since_a_time_by_the_probes_names(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRACETAX_STATE_DIR", str(tmp_path))
    assert stack_exits_since(0.0) == {}  # no watcher ever ran here: nothing known
    write_record(
        tmp_path,
        {
            "collector": {"restarts": 1, "last_exit": "killed by SIGKILL", "last_exit_at": 200.0},
            "mimir": {"restarts": 1, "last_exit": "exit status 2", "last_exit_at": 150.0},
            "loki": {"restarts": 1, "last_exit": "exit status 1", "last_exit_at": 50.0},
            "backend": {"restarts": 1, "last_exit": "killed by SIGKILL", "last_exit_at": 300.0},
        },
    )
    assert stack_exits_since(100.0) == {
        "collector": "collector killed by SIGKILL",
        "metrics": "mimir exit status 2",
    }
