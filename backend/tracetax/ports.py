"""Local TCP ports for the processes a round starts."""

from __future__ import annotations

import re
import socket

import psutil


def free_port() -> int:
    """A port nothing listens on right now (the kernel's pick)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


# How Go (the Collector) and most runtimes word a failed bind: "listen tcp 127.0.0.1:4317:
# bind: address already in use".
_BIND_FAILURE = re.compile(r"(?:[\w.\[\]:-]*?):(\d{1,5}): bind: address already in use")


def holder_of(port: int) -> str:
    """Who listens on a local TCP port: "pid 123 (python3 ...)", or why it cannot be told."""
    try:
        connections = psutil.net_connections(kind="tcp")
    except (psutil.AccessDenied, OSError) as error:
        return f"unknown ({error})"
    for connection in connections:
        if connection.status == psutil.CONN_LISTEN and connection.laddr and connection.laddr.port == port:
            if connection.pid is None:
                return "a process this user cannot see"
            try:
                command = " ".join(psutil.Process(connection.pid).cmdline()).replace("\n", " ")[:120]
            except psutil.Error:
                command = "?"
            return f"pid {connection.pid} ({command})"
    return "nobody any more (it was released since)"


def taken_port_message(log_text: str) -> str | None:
    """For a process that failed to bind: "port N is already taken, held by ...", else None."""
    match = _BIND_FAILURE.search(log_text)
    if match is None:
        return None
    port = int(match.group(1))
    return f"port {port} is already taken, held by {holder_of(port)}: free it or choose another port"
