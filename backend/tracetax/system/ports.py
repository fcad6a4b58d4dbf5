"""Local TCP ports for the processes a round starts."""

from __future__ import annotations

import re
import secrets
import socket
import threading
from collections import deque
from pathlib import Path

import psutil

EPHEMERAL_RANGE = Path("/proc/sys/net/ipv4/ip_local_port_range")
# Where ports are picked: just below the kernel's ephemeral range.
PICK_SPAN = 10_000
_issued: deque[int] = deque(maxlen=256)
_issued_lock = threading.Lock()


def ephemeral_range() -> tuple[int, int]:
    """The local ports the kernel hands to outgoing connections (Linux's default if unreadable)."""
    try:
        low, high = (int(value) for value in EPHEMERAL_RANGE.read_text().split())
    except (OSError, ValueError):
        return 32768, 60999
    return low, high


def _bindable(port: int) -> bool:
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_port() -> int:
    """A port nothing listens on right now, for a process about to listen on it.

    Picked below the kernel's ephemeral range: the kernel's own pick (bind to port 0) comes
    from that range, which outgoing connections draw from too, so between the probe and the
    process's bind a client connection could take it (seen: a lab Collector's receiver port
    taken by one of the read-back's HTTP connections). Ports handed out recently are not given
    again, so several calls in a row for one process never collide."""
    low, _ = ephemeral_range()
    first = max(1024, low - PICK_SPAN)
    span = low - first
    with _issued_lock:
        for _ in range(min(span, 500)):
            port = first + secrets.randbelow(span)
            if port not in _issued and _bindable(port):
                _issued.append(port)
                return port
    # No room below the range (a tuned kernel): the kernel's pick, as before.
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        picked: int = probe.getsockname()[1]
    return picked


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
    for connection in connections:  # an outgoing connection's local end
        if connection.laddr and connection.laddr.port == port:
            return f"a connection of pid {connection.pid} to {connection.raddr}"
    return "nobody any more (it was released since)"


def taken_port_message(log_text: str) -> str | None:
    """For a process that failed to bind: "port N is already taken, held by ...", else None."""
    match = _BIND_FAILURE.search(log_text)
    if match is None:
        return None
    port = int(match.group(1))
    return f"port {port} is already taken, held by {holder_of(port)}: free it or choose another port"


def port_in_use(port: int) -> bool:
    """Whether something already listens on a local TCP port. SO_REUSEADDR, as servers bind:
    the connections a previous round's service left in TIME_WAIT do not count."""
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
            probe.listen()
        except OSError:
            return True
    return False


def listening_ports(pid: int) -> set[int]:
    """TCP ports a process and its descendants listen on (empty when it cannot be told)."""
    try:
        root = psutil.Process(pid)
        tree = {root.pid, *(child.pid for child in root.children(recursive=True))}
        connections = psutil.net_connections(kind="tcp")
    except (psutil.Error, OSError):
        return set()
    return {c.laddr.port for c in connections if c.status == psutil.CONN_LISTEN and c.pid in tree and c.laddr}
