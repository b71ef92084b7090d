"""Under load: many small concurrent requests share reward calls, a full queue answers 429 with Retry-After
(which RemoteReward waits out), and a request past its timeout is a 504. Every load here is a fixed number
of requests with a deadline: each test stops by itself."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from serve_helpers import running

import rewardkit as rk
from rewardkit.serve.settings import ServeSettings


def metric(url: str, name: str) -> float:
    for line in httpx.get(url + "/metrics").text.splitlines():
        if not line.startswith("#") and line.rsplit(" ", 1)[0] == name:
            return float(line.rsplit(" ", 1)[1])
    return 0.0


def test_a_burst_of_one_row_requests_is_scored_in_shared_reward_calls():
    texts = [f"Answer: {'ABCD'[i % 4]}" for i in range(256)]
    with rk.get_reward("mcq_accuracy") as reward:
        expected = reward(completions=texts, answer=["B"] * 256)
        with running(reward, ServeSettings(port=0, batch_wait=0.005)) as url:
            remote = rk.RemoteReward(url, deadline=120)

            def one(i: int) -> list:
                return remote(completions=[texts[i]], answer=["B"])

            with ThreadPoolExecutor(32) as pool:
                got = [v for values in pool.map(one, range(256)) for v in values]
            assert got == expected
            assert metric(url, 'rewardkit_rows_total{endpoint="/v1/score"}') == 256
            batches = metric(url, "rewardkit_batches_total")
            assert batches < 128, batches  # 256 requests, far fewer reward calls
            assert metric(url, "rewardkit_merged_requests_total") > 128
            assert metric(url, "rewardkit_queue_rows") == 0 and metric(url, "rewardkit_in_flight_requests") == 1


@pytest.mark.slow
def test_a_full_queue_answers_429_with_retry_after_and_the_client_waits_it_out():
    settings = ServeSettings(port=0, queue_rows=2, batch_rows=1, concurrency=1, batch_wait=0, retry_after=1)
    with rk.get_reward("serve_helpers:slow_length") as reward, running(reward, settings) as url:
        body = {"completions": ["abcd"], "columns": {"delay": [0.3]}}
        with ThreadPoolExecutor(8) as pool:
            answers = list(pool.map(lambda _: httpx.post(url + "/v1/score", json=body, timeout=60), range(8)))
        codes = sorted(a.status_code for a in answers)
        assert 429 in codes and 200 in codes, codes
        refused = next(a for a in answers if a.status_code == 429)
        assert refused.headers["retry-after"] == "1" and refused.json()["error"] == "queue_full"
        remote = rk.RemoteReward(url, backoff=0.2, deadline=120)
        with ThreadPoolExecutor(6) as pool:
            values = list(pool.map(lambda _: remote(completions=["abcd"], delay=[0.2]), range(6)))
        assert values == [[0.04]] * 6
        assert metric(url, 'rewardkit_requests_total{endpoint="/v1/score",code="429"}') > len(
            [c for c in codes if c == 429]
        )


def test_a_request_past_its_timeout_is_a_504_naming_the_limit():
    settings = ServeSettings(port=0, request_timeout=0.5)
    with rk.get_reward("serve_helpers:slow_length") as reward, running(reward, settings) as url:
        response = httpx.post(url + "/v1/score", json={"completions": ["ab"], "columns": {"delay": [2.0]}}, timeout=30)
        assert response.status_code == 504 and "--request-timeout" in response.json()["detail"]
        assert httpx.get(url + "/health").status_code == 200
