"""The judge's limits: max_concurrency and requests per minute under a bounded load on a real server, and
the token buckets on a clock the test moves (no timed assertions)."""

from __future__ import annotations

import threading

import pytest

import rewardkit as rk
from rewardkit.verifiers.judge.limits import LimitTimeout, TokenBucket

ROWS = 24


def load(verifier, n=ROWS):
    return verifier.verify_batch([f"answer {i}" for i in range(n)], [f"answer {i}" for i in range(n)])


@pytest.mark.parametrize("limit", [2, 3])
def test_max_concurrency_holds_for_a_batch_and_for_concurrent_batches(scripted, limit):
    server = scripted(delay=0.05)
    with rk.get_verifier("judge", base_url=server.base_url, model="m", max_concurrency=limit) as verifier:
        threads = [threading.Thread(target=load, args=(verifier, 12)) for _ in range(2)]
        for t in threads:
            t.start()
        verdicts = load(verifier)
        for t in threads:
            t.join()
    assert all(v.correct for v in verdicts) and server.log.requests == ROWS + 24
    assert 2 <= server.log.max_in_flight <= limit


def test_without_a_tight_limit_the_same_load_overlaps_more(scripted):
    server = scripted(delay=0.05)
    with rk.get_verifier("judge", base_url=server.base_url, model="m", max_concurrency=8) as verifier:
        load(verifier)
    assert server.log.max_in_flight > 3  # the limit above is what held it


def test_requests_per_minute_holds_over_every_window(scripted):
    server = scripted()
    rpm = 600  # 10 a second, a bucket of one second's share
    with rk.get_verifier("judge", base_url=server.base_url, model="m", requests_per_minute=rpm) as verifier:
        verdicts = load(verifier, 30)
    assert all(v.status == "ok" for v in verdicts) and server.log.requests == 30
    arrivals = sorted(server.log.arrivals)
    for i, start in enumerate(arrivals):
        in_window = sum(1 for t in arrivals[i:] if t < start + 1.0)
        assert in_window <= rpm / 60 * 2 + 2, f"{in_window} requests within one second"


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_bucket_admits_one_seconds_share_then_refills_with_time():
    clock = Clock()
    bucket = TokenBucket(120, clock=clock)  # 2 a second
    bucket.take(1, deadline=0.0)
    bucket.take(1, deadline=0.0)
    with pytest.raises(LimitTimeout):
        bucket.take(1, deadline=0.1)  # empty: the next unit comes in 0.5 s
    clock.now = 0.5
    bucket.take(1, deadline=0.5)


def test_token_estimates_are_corrected_by_the_usage():
    clock = Clock()
    bucket = TokenBucket(60_000, clock=clock)  # 1000 tokens a second
    bucket.take(900, deadline=0.0)
    with pytest.raises(LimitTimeout):
        bucket.take(900, deadline=0.0)
    bucket.adjust(900 - 100)  # the call used 100 of the 900 estimated
    bucket.take(900, deadline=0.0)
    bucket.adjust(-500)  # a call used more than estimated: charged after the fact
    with pytest.raises(LimitTimeout):
        bucket.take(1, deadline=0.0)


def test_a_request_larger_than_the_bucket_still_goes_on_a_full_bucket():
    bucket = TokenBucket(60, clock=Clock())  # capacity 1
    bucket.take(10_000, deadline=0.0)
