"""`tracetax stack status` (`make status`) on a state directory with nothing running: every
component "not running", the watcher named as not running, and the record of its restarts
when a watcher once ran there. No process is started."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from tracetax.cli.main import app
from tracetax.native_stack.watch import write_record


def test_status_says_whether_the_watcher_runs_and_what_it_restarted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TRACETAX_API_TOKEN", raising=False)
    state = tmp_path / "state"
    state.mkdir()
    result = CliRunner().invoke(app, ["stack", "status", "--state-dir", str(state)])
    assert result.exit_code == 1, result.output  # nothing runs
    assert "watcher: NOT running: a component that exits stays down until `make up`" in result.output
    assert "restarted" not in result.output  # no watcher ever ran here

    collector = {"restarts": 3, "last_exit": "killed by SIGKILL", "last_exit_at": 1.7e9, "state": "running"}
    write_record(state, {"collector": collector})
    result = CliRunner().invoke(app, ["stack", "status", "--state-dir", str(state)])
    line = next(line for line in result.output.splitlines() if line.startswith("collector"))
    assert "FAILED" in line and "[restarted 3x, last: killed by SIGKILL at " in line, result.output
