"""``rk.RemoteReward``: TRL's reward contract over HTTP (sync and async), the same values and the same logs as
the reward in-process, picklable, retrying only what is safe and saying why when it gives up."""

from __future__ import annotations

import asyncio
import multiprocessing
import pickle
import threading
import time

import pytest
from serve_helpers import TOKEN, free_port, running

import rewardkit as rk
from rewardkit.serve.settings import ServeSettings

SPEC = {
    "name": "mixed",
    "combine": "sum",
    "terms": [
        {"reward": "math_accuracy", "params": {"workers": 1}},
        {"reward": "tag_format", "weight": 0.5},
    ],
}
PROMPTS = [[{"role": "user", "content": f"{i} + {i}?"}] for i in range(6)]
COMPLETIONS = [
    [{"role": "assistant", "content": f"<think>add</think><answer>\\boxed{{{2 * i if i % 3 else 2 * i + 1}}}</answer>"}]
    for i in range(6)
]
ANSWERS = [str(2 * i) for i in range(6)]


class Logs:
    def __init__(self) -> None:
        self.metrics: dict[str, float] = {}
        self.extra: dict[str, list] = {}

    def log_metric(self, name: str, value: float) -> None:
        self.metrics[name] = value

    def log_extra(self, name: str, values: list) -> None:
        self.extra[name] = values


@pytest.fixture(scope="module")
def reward():
    with rk.build_reward(SPEC) as built:
        yield built


@pytest.fixture(scope="module")
def url(reward):
    with running(reward, ServeSettings(port=0, token=TOKEN)) as address:
        yield address


def call(fn, logs: Logs | None = None):
    hooks = {"log_metric": logs.log_metric, "log_extra": logs.log_extra} if logs else {}
    return fn(prompts=PROMPTS, completions=COMPLETIONS, answer=ANSWERS, trainer_state=None, **hooks)


def test_it_is_a_trl_reward_with_the_served_rewards_name_values_and_logs(reward, url):
    remote = rk.RemoteReward(url, token=TOKEN)
    assert isinstance(remote, rk.Reward) and remote.__name__ == "mixed"
    local_logs, remote_logs = Logs(), Logs()
    expected = call(reward, local_logs)
    assert call(remote, remote_logs) == expected
    assert expected == [0.5, 1.5, 1.5, 0.5, 1.5, 1.5]
    assert remote_logs.metrics == local_logs.metrics and remote_logs.extra == local_logs.extra
    assert "rewards/mixed/math_accuracy/mean" in remote_logs.metrics
    assert remote_logs.extra["mixed/math_accuracy/status"] == ["ok"] * 6
    assert remote.explain(completions=COMPLETIONS, answer=ANSWERS) == reward.explain(
        completions=COMPLETIONS, answer=ANSWERS
    )
    remote.close()


def test_its_async_form_awaits_the_service_and_logs_the_same(reward, url):
    remote = rk.RemoteReward(url, token=TOKEN).as_async()
    assert asyncio.iscoroutinefunction(remote.__call__) and remote.__name__ == "mixed"
    local_logs, remote_logs = Logs(), Logs()
    expected = call(reward, local_logs)

    async def many() -> list:
        return await asyncio.gather(*(call(remote, remote_logs if i == 0 else None) for i in range(8)))

    assert asyncio.run(many()) == [expected] * 8
    assert remote_logs.metrics == local_logs.metrics and remote_logs.extra == local_logs.extra
    assert rk.RemoteReward(url, token=TOKEN, name="mixed").as_async().reward.name == "mixed"


def _score_in_child(remote: rk.RemoteReward) -> list:
    return remote(completions=["\\boxed{4}"], answer=["4"])


def test_it_pickles_and_a_copy_in_another_process_opens_its_own_connection(url):
    remote = rk.RemoteReward(url, token=TOKEN)
    remote(completions=["\\boxed{4}"], answer=["4"])  # a live connection in this one
    copy = pickle.loads(pickle.dumps(remote))
    assert copy(completions=["\\boxed{4}"], answer=["4"]) == [1.0] and copy.name == "mixed"
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        assert pool.apply(_score_in_child, (remote,)) == [1.0]


def test_a_service_not_up_yet_is_retried_until_it_answers(reward):
    port = free_port()
    remote = rk.RemoteReward(f"http://127.0.0.1:{port}", name="mixed", backoff=0.2, max_backoff=1.0)
    answered = threading.Event()

    def start_late() -> None:
        time.sleep(1.0)  # the first tries find nothing listening
        with running(reward, ServeSettings(port=port)):
            answered.wait(30)

    server = threading.Thread(target=start_late, daemon=True)
    server.start()
    try:
        assert remote(completions=["\\boxed{4}"], answer=["4"]) == [1.0]
        assert remote.last_tries >= 2
    finally:
        answered.set()
        server.join(30)


def test_it_gives_up_naming_the_url_the_last_error_and_the_tries():
    port = free_port()
    remote = rk.RemoteReward(f"http://127.0.0.1:{port}", name="x", max_tries=3, backoff=0.05)
    with pytest.raises(
        rk.ServiceError, match=rf"POST http://127.0.0.1:{port}/v1/score: no answer after 3 tries"
    ) as err:
        remote(completions=["a"], answer=["a"])
    assert "ConnectError" in str(err.value)
    with pytest.raises(rk.ServiceError, match="/health"):
        rk.RemoteReward(f"http://127.0.0.1:{port}", max_tries=2, backoff=0.05)


def test_a_refusal_of_the_service_is_raised_at_once_and_not_retried(url):
    remote = rk.RemoteReward(url, token=TOKEN)
    with pytest.raises(rk.ConfigError, match="HTTP 422 .*'answer'"):
        remote(completions=["a"])
    assert remote.last_tries == 1
    with pytest.raises(rk.ConfigError, match="HTTP 401 .*token="):
        rk.RemoteReward(url, name="mixed")(completions=["a"], answer=["a"])
    with pytest.raises(rk.ConfigError, match="http:// or https://"):
        rk.RemoteReward("127.0.0.1:8000")
