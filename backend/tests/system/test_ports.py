"""A port a process could not bind is named with the process that holds it."""

from __future__ import annotations

import os
import socket

from tracetax.system.ports import ephemeral_range, free_port, holder_of, taken_port_message


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


def test_free_ports_come_from_below_the_ephemeral_range_and_never_twice_in_a_row() -> None:
    low, _ = ephemeral_range()
    ports = [free_port() for _ in range(50)]
    assert len(set(ports)) == len(ports)
    assert all(port < low for port in ports)  # no outgoing connection is ever given one


def test_a_port_held_by_an_outgoing_connection_names_it() -> None:
    with socket.socket() as server, socket.socket() as client:
        server.bind(("127.0.0.1", 0))
        server.listen()
        client.connect(server.getsockname())
        local = client.getsockname()[1]
        assert holder_of(local).startswith(f"a connection of pid {os.getpid()}")
