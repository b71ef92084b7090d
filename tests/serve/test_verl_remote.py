"""verl's Reward Loop scoring through a reward service: a route to ``rk.RemoteReward``, awaited once per
sample by many coroutines as a reward-loop worker does, becomes a few requests of many rows each."""

from __future__ import annotations

import asyncio
import inspect

import httpx
import pytest
from serve_helpers import running

import rewardkit as rk
from rewardkit.integrations import verl

SPEC = {
    "name": "gsm8k_reward",
    "combine": "sum",
    "terms": [{"reward": "math_accuracy", "params": {"workers": 1}}, {"reward": "think_format", "weight": 0.5}],
}


@pytest.fixture(autouse=True)
def _clean():
    verl.reset()
    yield
    verl.reset()


def test_a_reward_loop_worker_scores_through_the_service_in_a_few_requests():
    rows = [
        {
            "data_source": "openai/gsm8k",
            "solution_str": f"<think>{i} * 2</think> so \\boxed{{{2 * i if i % 5 else 2 * i + 1}}}",
            "ground_truth": str(2 * i),
            "extra_info": {"index": i, "split": "train", "num_turns": None, "rollout_reward_scores": {}},
        }
        for i in range(64)
    ]
    with rk.build_reward(SPEC) as reward, running(reward) as url:
        expected = [
            verl.compute_score_batch(["x"], [r["solution_str"]], [r["ground_truth"]], spec=SPEC)[0] for r in rows
        ]
        verl.register("*", rk.RemoteReward(url))
        fn = verl.compute_score_async
        assert inspect.iscoroutinefunction(fn)

        async def worker() -> list:
            return await asyncio.gather(*(asyncio.create_task(fn(**row)) for row in rows))

        got = asyncio.run(worker())
        metrics = httpx.get(url + "/metrics").text
    assert got == expected
    assert got[0] == 0.5 and got[1] == 1.5
    requests = next(
        float(line.split()[-1])
        for line in metrics.splitlines()
        if line.startswith('rewardkit_requests_total{endpoint="/v1/score",code="200"}')
    )
    assert requests <= 8, requests  # 64 samples, a handful of requests
