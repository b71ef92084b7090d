"""The micro-batcher: concurrent calls of one reward merged into one reward call, each caller getting its own
rows; bounded; an error reaching only the call (or, isolating rows, only the row) it came from."""

from __future__ import annotations

import asyncio
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

import rewardkit as rk
from rewardkit.rewards.base import Reward, Scored
from rewardkit.rewards.inputs import Batch
from rewardkit.scoring.micro_batch import BatcherClosed, MicroBatcher, QueueFull, QueueTimeout


class LengthReward(Reward):
    """len(completion) / 10 per row, with a status; records each call's size; raises on 'BOOM'."""

    def __init__(self, delay: float = 0.0) -> None:
        super().__init__("length")
        self.delay = delay
        self.calls: list[int] = []
        self.lock = threading.Lock()

    def score(self, batch: Batch) -> Scored:
        with self.lock:
            self.calls.append(len(batch))
        time.sleep(self.delay)
        if any(t == "BOOM" for t in batch.texts):
            raise RuntimeError("the reward's own code broke on BOOM")
        answers = batch.column("answer", reward=self.name)
        values = [len(t) / 10 for t in batch.texts]
        statuses = ["ok" if t == a else "mismatch" for t, a in zip(batch.texts, answers, strict=True)]
        return Scored.leaf(self.name, values, statuses, list(batch.texts))


def one(text: str, answer: str = "x") -> Batch:
    return Batch.from_call(None, [text], {"answer": [answer]})


def test_concurrent_calls_are_scored_in_fewer_reward_calls_each_getting_its_own_rows():
    reward = LengthReward(delay=0.02)
    batcher = MicroBatcher(reward, max_wait=0.01, concurrency=1)
    texts = [f"t{'x' * i}" for i in range(40)]
    with ThreadPoolExecutor(20) as pool:
        results = list(pool.map(lambda t: batcher(one(t, t)), texts))
    assert [r.values for r in results] == [[len(t) / 10] for t in texts]
    assert [r.statuses for r in results] == [{"length": ["ok"]}] * 40
    assert [r.extracted["length"] for r in results] == [[t] for t in texts]
    assert sum(reward.calls) == 40 and len(reward.calls) < 20, reward.calls
    assert batcher.stats.merged_calls > 20
    batcher.close()


def test_a_reward_call_takes_at_most_max_batch_rows_rows():
    reward = LengthReward(delay=0.01)
    batcher = MicroBatcher(reward, max_batch_rows=4, max_wait=0.05, concurrency=1)
    futures = [batcher.submit(one("abc")) for _ in range(10)]
    assert [f.result(10).values for f in futures] == [[0.3]] * 10
    assert max(reward.calls) <= 4 and sum(reward.calls) == 10
    big = batcher.submit(Batch.from_call(None, ["a"] * 9, {"answer": ["a"] * 9}))  # alone, whole
    assert big.result(10).values == [0.1] * 9 and reward.calls[-1] == 9
    batcher.close()


def test_calls_with_different_columns_are_not_merged_and_a_missing_column_fails_only_its_call():
    reward = LengthReward(delay=0.05)
    batcher = MicroBatcher(reward, max_wait=0.05, concurrency=1)
    good = [batcher.submit(one("ab")) for _ in range(3)]
    lacking = batcher.submit(Batch.from_call(None, ["ab"], {"other": [1]}))
    assert [f.result(10).values for f in good] == [[0.2]] * 3
    with pytest.raises(rk.ConfigError, match="needs a dataset column named 'answer'"):
        lacking.result(10)
    batcher.close()


def test_a_merged_call_that_raises_fails_only_the_call_it_came_from():
    reward = LengthReward(delay=0.02)
    batcher = MicroBatcher(reward, max_wait=0.05, concurrency=1)
    futures = [batcher.submit(one(t)) for t in ("aa", "BOOM", "aaaa")]
    assert futures[0].result(10).values == [0.2]
    with pytest.raises(rk.RewardError, match="broke on BOOM"):
        futures[1].result(10)
    assert futures[2].result(10).values == [0.4]
    batcher.close()


def test_isolating_rows_a_row_that_raises_gets_no_value_and_status_error_and_the_rest_their_values():
    reward = LengthReward()
    batcher = MicroBatcher(reward, isolate_rows=True, concurrency=1)
    texts = ["a", "bb", "BOOM", "dddd", "eeeee", "BOOM", "g"]
    scored = batcher(Batch.from_call(None, texts, {"answer": texts}))
    assert scored.values == [0.1, 0.2, None, 0.4, 0.5, None, 0.1]
    assert scored.statuses == {"length": ["ok", "ok", "error", "ok", "ok", "error", "ok"]}
    assert scored.components["length"] == scored.values
    assert set(scored.errors) == {2, 5} and "broke on BOOM" in scored.errors[2]
    alone = batcher(one("BOOM"))  # a lone failing row too: its status, not an exception
    assert alone.values == [None] and alone.statuses == {"length": ["error"]} and 0 in alone.errors
    with pytest.raises(rk.ConfigError):  # a batch without the column is the batch's error, not its rows'
        batcher(Batch.from_call(None, ["a", "BOOM"], {}))
    batcher.close()


def test_a_full_queue_refuses_a_call_and_an_empty_one_takes_any():
    reward = LengthReward(delay=0.3)
    batcher = MicroBatcher(reward, max_queue_rows=3, max_batch_rows=1, concurrency=1, max_wait=0)
    first = batcher.submit(one("a"))
    time.sleep(0.1)  # the first call is being scored; the queue is empty again
    queued = [batcher.submit(one("b")), batcher.submit(one("c")), batcher.submit(one("d"))]
    with pytest.raises(QueueFull, match="3 rows are waiting"):
        batcher.submit(one("e"))
    assert batcher.stats.rejected == 1
    assert [f.result(10).values for f in [first, *queued]] == [[0.1]] * 4
    big = batcher.submit(Batch.from_call(None, ["z"] * 50, {"answer": ["z"] * 50}))
    assert big.result(10).values == [0.1] * 50
    batcher.close()


def test_a_call_whose_deadline_passes_in_the_queue_is_never_scored():
    reward = LengthReward(delay=0.4)
    batcher = MicroBatcher(reward, max_batch_rows=1, concurrency=1, max_wait=0)
    busy = batcher.submit(one("a"))
    late = batcher.submit(one("b"), timeout=0.1)
    assert busy.result(10).values == [0.1]
    with pytest.raises(QueueTimeout):
        late.result(10)
    assert sum(reward.calls) == 1 and batcher.stats.expired == 1
    batcher.close()


def test_close_scores_what_is_queued_then_refuses_new_calls():
    reward = LengthReward(delay=0.05)
    batcher = MicroBatcher(reward, max_batch_rows=1, concurrency=1, max_wait=0)
    futures = [batcher.submit(one("ab")) for _ in range(5)]
    batcher.close(drain=True, timeout=10)
    assert [f.result(0).values for f in futures] == [[0.2]] * 5
    with pytest.raises(BatcherClosed):
        batcher.submit(one("ab"))


def test_close_without_drain_fails_the_queued_calls():
    reward = LengthReward(delay=0.3)
    batcher = MicroBatcher(reward, max_batch_rows=1, concurrency=1, max_wait=0)
    running = batcher.submit(one("ab"))
    time.sleep(0.1)
    queued = batcher.submit(one("ab"))
    batcher.close(drain=False, timeout=10)
    assert running.result(10).values == [0.2]
    with pytest.raises(BatcherClosed):
        queued.result(0)


def test_many_coroutines_awaiting_one_row_each_share_reward_calls():
    reward = LengthReward(delay=0.01)
    batcher = MicroBatcher(reward, max_wait=0.005)

    async def main() -> list[Scored]:
        return await asyncio.gather(*(batcher.score(one("x" * (i % 7))) for i in range(200)))

    results = asyncio.run(main())
    assert [r.values[0] for r in results] == [(i % 7) / 10 for i in range(200)]
    assert sum(reward.calls) == 200 and len(reward.calls) <= 20, reward.calls
    batcher.close()


def test_a_real_reward_gives_the_same_rows_through_the_batcher_as_in_process():
    texts = ["<think>a</think><answer>\\boxed{2}</answer>", "so 3", "\\boxed{4}", "nothing"]
    answers = ["2", "3", "5", "1"]
    with rk.build_reward({"combine": "sum", "terms": ["math_accuracy", {"reward": "tag_format"}]}) as reward:
        expected = reward.explain(completions=texts, answer=answers)
        batcher = MicroBatcher(reward, max_wait=0.02)
        with ThreadPoolExecutor(4) as pool:
            got = list(pool.map(lambda i: batcher(one(texts[i], answers[i])), range(4)))
        batcher.close()
    assert [g.values[0] for g in got] == [e["reward"] for e in expected]
    assert [g.statuses["math_accuracy"][0] for g in got] == [e["status"] for e in expected]
    assert [{k: v[0] for k, v in g.components.items()} for g in got] == [e["components"] for e in expected]


def test_a_call_waits_for_company_only_while_more_coming_says_some_is_on_its_way():
    asked: list[tuple[int, int]] = []

    def nobody_else(waiting: int, running: int) -> bool:
        asked.append((waiting, running))
        return False

    reward = LengthReward()
    batcher = MicroBatcher(reward, max_wait=30, concurrency=1, more_coming=nobody_else)
    assert batcher.submit(one("abc")).result(timeout=10).values == [0.3]  # not held for 30 s
    assert asked and asked[0] == (1, 0)
    batcher.close()


def test_a_call_given_up_by_its_caller_is_skipped_and_the_batcher_goes_on(monkeypatch):
    crashed: list[BaseException] = []
    monkeypatch.setattr(threading, "excepthook", lambda args: crashed.append(args.exc_value))
    reward = LengthReward(delay=0.3)
    batcher = MicroBatcher(reward, max_batch_rows=1, concurrency=1, max_wait=0)
    busy = batcher.submit(one("a"))
    time.sleep(0.05)
    gave_up = batcher.submit(one("bb"), timeout=0.05)  # expires in the queue, and its caller cancels it too
    assert gave_up.cancel()
    assert busy.result(10).values == [0.1]
    assert batcher.submit(one("ccc")).result(10).values == [0.3]  # the thread survived the cancelled call
    assert sum(reward.calls) == 2
    assert crashed == []  # no thread died on the cancelled call
    batcher.close()
