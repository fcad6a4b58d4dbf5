"""The command line starts without the engine, the database or the statistics: `tracetax
check` runs in every CI job, and those imports took 4 s before it sent its first request
(every command module imported them at the top; now the command that needs them does)."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("scipy", "numpy", "sqlalchemy", "alembic", "ruptures")


def test_the_command_line_loads_no_statistics_or_database() -> None:
    probe = f"import sys, tracetax.cli.main; print([m for m in {HEAVY!r} if m in sys.modules])"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]", done.stdout + done.stderr
