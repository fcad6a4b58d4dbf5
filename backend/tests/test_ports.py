"""A port a process could not bind is named with the process that holds it."""

from __future__ import annotations

import os
import socket

from tracetax.ports import free_port, holder_of, taken_port_message


def test_a_failed_bind_names_the_port_and_its_holder() -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        log = f"Error: cannot start pipelines: listen tcp 127.0.0.1:{port}: bind: address already in use"
        message = taken_port_message(log)
    assert message is not None
    assert message.startswith(f"port {port} is already taken, held by pid {os.getpid()} (")


def test_a_log_without_a_failed_bind_says_nothing() -> None:
    assert taken_port_message("everything is ready") is None


def test_a_free_port_has_no_holder() -> None:
    assert holder_of(free_port()).startswith("nobody")
