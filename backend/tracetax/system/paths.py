"""Where TraceTax finds its repository, keeps built tools and keeps its state.

Plain functions of the environment, read on every call (tests and `make` set these variables
per process), so every layer can ask without importing the native stack.
"""

from __future__ import annotations

import os
from pathlib import Path

# backend/tracetax/system/paths.py -> the repository's root.
REPO_ROOT = Path(__file__).resolve().parents[3]


def cache_dir() -> Path:
    """Where built tools live; outside the repository so nothing third-party is committed."""
    configured = os.environ.get("TRACETAX_CACHE_DIR")
    base = Path(configured) if configured else Path.home() / ".cache" / "tracetax"
    return base.expanduser().resolve()


def state_dir() -> Path:
    """Where the running stack keeps pid files, logs and data."""
    configured = os.environ.get("TRACETAX_STATE_DIR")
    if configured:
        return Path(configured).expanduser().resolve()
    xdg_state = os.environ.get("XDG_STATE_HOME")
    base = Path(xdg_state) if xdg_state else Path.home() / ".local" / "state"
    return (base / "tracetax").resolve()
