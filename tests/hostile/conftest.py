"""The hostile programs (hostile_programs.py) are never collected here: test_hostile_boundary.py runs
them in a child pytest inside a disposable boundary it builds (tests/hostile/boundary.py). That child pytest
loads this conftest too: its fixtures are the ones the program modules share."""

from __future__ import annotations

import socket
import threading

import pytest

collect_ignore = ["hostile_programs.py", "hostile_cases.py", "boundary.py"]


@pytest.fixture(scope="module")
def listener():
    """A TCP server in the boundary's network namespace; the sandbox must never reach it."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    server.settimeout(0.2)
    hits: list[bytes] = []
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            hits.append(conn.recv(100))
            conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield server.getsockname()[1], hits
    stop.set()
    thread.join(2)
    server.close()
