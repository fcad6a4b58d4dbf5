"""Local TCP ports for the processes a round starts."""

from __future__ import annotations

import socket


def free_port() -> int:
    """A port nothing listens on right now (the kernel's pick)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port
