"""`rewardkit serve` as a process: it says where it listens, drains on SIGTERM (the request in flight is
answered, new connections are refused, exit 0), and a server killed mid-request costs the client a retry,
not the request."""

from __future__ import annotations

import threading
import time

import httpx
import pytest
from serve_helpers import ServeProcess, free_port, running_app

import rewardkit as rk
from rewardkit.serve.app import create_app
from rewardkit.serve.settings import ServeSettings

pytestmark = pytest.mark.slow


def in_flight_rows(url: str) -> float:
    for line in httpx.get(url + "/metrics", timeout=10).text.splitlines():
        if line.startswith("rewardkit_in_flight_rows "):
            return float(line.split()[1])
    return 0.0


def wait_in_flight(url: str, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while in_flight_rows(url) < 1:
        assert time.monotonic() < deadline, "the request never reached the reward"
        time.sleep(0.05)


def test_sigterm_drains_the_request_in_flight_refuses_new_connections_and_exits_0():
    server = ServeProcess("--reward", "serve_helpers:slow_length", "--port", "0")
    try:
        answers: list[httpx.Response] = []
        body = {"completions": ["abcdef"], "columns": {"delay": [3.0]}}
        slow = threading.Thread(
            target=lambda: answers.append(httpx.post(server.url + "/v1/score", json=body, timeout=60))
        )
        slow.start()
        wait_in_flight(server.url)
        server.terminate()
        deadline = time.monotonic() + 10
        while True:  # the listening socket closes at once: a new connection is refused
            try:
                httpx.get(server.url + "/health", timeout=2)
            except httpx.ConnectError:
                break
            assert time.monotonic() < deadline, "still accepting connections after SIGTERM"
            time.sleep(0.05)
        slow.join(30)
        assert answers and answers[0].status_code == 200 and answers[0].json()["values"] == [0.06]
        assert server.wait(30) == 0
        assert "drained and stopped" in server.output()
    finally:
        server.kill()


def test_while_draining_scoring_is_refused_with_retry_after_and_health_says_so():
    with rk.get_reward("mcq_accuracy") as reward:
        app = create_app(reward, ServeSettings(port=0))
        with running_app(app) as url:
            app.state.service.start_draining()
            refused = httpx.post(url + "/v1/score", json={"completions": ["A"], "columns": {"answer": ["A"]}})
            assert refused.status_code == 503 and refused.headers["retry-after"] == "1"
            assert refused.json()["error"] == "draining"
            health = httpx.get(url + "/health")
            assert health.status_code == 503 and health.json()["status"] == "draining"


def test_a_server_killed_mid_request_costs_the_client_a_retry_not_the_request():
    port = free_port()
    first = ServeProcess("--reward", "serve_helpers:slow_length", "--port", str(port))
    second = None
    try:
        remote = rk.RemoteReward(first.url, backoff=0.2, max_backoff=1.0, max_tries=20)
        got: list = []
        call = threading.Thread(target=lambda: got.append(remote(completions=["abc"], delay=[1.5])))
        call.start()
        wait_in_flight(first.url)
        first.kill()  # SIGKILL, mid-request: the connection drops with no answer
        second = ServeProcess("--reward", "serve_helpers:slow_length", "--port", str(port))
        call.join(60)
        assert got == [[0.03]]
        assert remote.last_tries >= 2
    finally:
        first.kill()
        if second is not None:
            second.kill()
