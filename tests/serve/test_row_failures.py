"""A verifier failure costs only its row: the row's status and no value (None), the other rows their values,
and the request a 200; a worker process killed mid-request costs nothing at all."""

from __future__ import annotations

import os
import signal

import httpx
import pytest
from serve_helpers import running

import rewardkit as rk

ROWS = ["4", "SANDBOX_DOWN", "5", "REWARD_BUG", "VERIFIER_BUG", "4"]
ANSWERS = ["4"] * 6
HEALTHY = [0, 1, 2, 4, 5]  # in-process, a reward that raises stops the whole call: judge the others alone


@pytest.fixture
def reward(serve_plugin):
    spec = {
        "combine": "sum",
        "terms": [
            {"reward": "verifier_accuracy", "params": {"verifier": "infra_failing"}},
            {"reward": "serve_helpers:fragile_length"},
        ],
    }
    with rk.build_reward(spec) as built:
        yield built


def test_a_failing_row_gets_its_status_and_no_value_and_the_others_their_values(reward):
    expected = reward.explain(completions=[ROWS[i] for i in HEALTHY], answer=[ANSWERS[i] for i in HEALTHY])
    with running(reward) as url:
        response = httpx.post(url + "/v1/score", json={"completions": ROWS, "columns": {"answer": ANSWERS}}, timeout=60)
    assert response.status_code == 200
    body = response.json()
    assert [body["values"][i] for i in HEALTHY] == [e["reward"] for e in expected]
    assert body["values"][0] == 1.01 and body["values"][2] == 0.01
    statuses = body["statuses"]["infra_failing"]
    assert statuses == ["ok", "sandbox_error", "ok", "error", "error", "ok"]
    # the reward's own code raised on row 3 only: no value, no component, and why
    assert body["values"][3] is None
    assert (
        body["components"]["infra_failing"][3] is None and body["components"]["serve_helpers:fragile_length"][3] is None
    )
    assert [e["row"] for e in body["errors"]] == [3] and "cannot score REWARD_BUG" in body["errors"][0]["error"]
    # the verifier's own failures are verdicts: their rows are what the same reward gives in-process, which
    # is no value (an infrastructure failure is not a wrong answer)
    assert [body["values"][i] for i in (1, 4)] == [expected[1]["reward"], expected[3]["reward"]] == [None, None]


def test_each_trainer_shape_reports_the_failed_row_without_failing_the_request(reward):
    with running(reward) as url, httpx.Client(base_url=url, timeout=60) as client:
        openrlhf = client.post("/get_reward", json={"query": ROWS, "labels": ANSWERS})
        assert openrlhf.status_code == 200
        logs = openrlhf.json()["extra_logs"]
        assert logs["no_value"] == [0.0, 1.0, 0.0, 1.0, 1.0, 0.0]
        assert logs["infra_failing/ok"] == [1.0, 0.0, 1.0, 0.0, 0.0, 1.0]
        assert openrlhf.json()["rewards"][1::2] == [None, None, 1.01]  # null: --none-reward picks a number

        slime = client.post("/reward", json={"prompt": "2 + 2?", "response": "REWARD_BUG", "label": "4"}).json()
        assert slime["reward"] is None and slime["no_value"] is True and slime["status"] == "error"

        output = [{"type": "message", "content": [{"type": "output_text", "text": "REWARD_BUG"}]}]
        nemo = client.post(
            "/verify",
            json={
                "responses_create_params": {"input": "2 + 2?"},
                "response": {"output": output},
                "expected_answer": "4",
            },
        ).json()
        assert nemo["reward"] == 0.0 and nemo["_ng_failure_class"] == "reward_unavailable"
        assert "infra_failing: error" in nemo["_ng_failure_error"]
        text = client.get("/metrics").text
    assert "rewardkit_row_errors_total 3" in text
    assert 'rewardkit_statuses_total{term="infra_failing",status="sandbox_error"} 1' in text


def test_a_math_worker_killed_mid_request_costs_the_request_nothing(monkeypatch):
    from rewardkit.verifiers import worker_pool

    n = 300
    completions = [f"so \\boxed{{\\frac{{{i}}}{{{i + 1}}}}}" for i in range(n)]
    answers = [f"{2 * i}/{2 * i + 2}" for i in range(n)]
    with rk.build_reward({"reward": "math_accuracy", "params": {"workers": 2, "timeout": 30}}) as reward:
        with running(reward) as url, httpx.Client(base_url=url, timeout=120) as client:
            warm = client.post("/v1/score", json={"completions": completions[:2], "columns": {"answer": answers[:2]}})
            assert warm.json()["values"] == [1.0, 1.0]
            pool = reward.verifier.pool
            send, calls, kills = worker_pool._Duplex.send, [0], []

            def send_then_kill_on_cue(conn, task):  # type: ignore[no-untyped-def]
                send(conn, task)
                calls[0] += 1
                if calls[0] in (50, 150):  # SIGKILL the worker just handed a sample, mid-request
                    pid = next(w.process.pid for w in pool._all if w.conn is conn)
                    os.kill(pid, signal.SIGKILL)
                    kills.append(pid)

            monkeypatch.setattr(worker_pool._Duplex, "send", send_then_kill_on_cue)
            response = client.post("/v1/score", json={"completions": completions, "columns": {"answer": answers}})
    assert len(kills) == 2 and pool.retries >= 2
    assert response.status_code == 200
    assert response.json()["values"] == [1.0] * n
    assert response.json()["statuses"]["math_accuracy"] == ["ok"] * n


def test_a_run_made_mostly_of_infrastructure_failures_is_stopped_as_in_process(serve_plugin):
    spec = {
        "reward": "verifier_accuracy",
        "params": {
            "verifier": "infra_failing",
            "max_infrastructure_failure_rate": 0.5,
            "infrastructure_failure_window": 4,
        },
    }
    with rk.build_reward(spec) as reward, running(reward) as url:
        rows = {"completions": ["SANDBOX_DOWN"] * 4, "columns": {"answer": ["4"] * 4}}
        response = httpx.post(url + "/v1/score", json=rows, timeout=60)
        assert response.status_code == 503 and response.json()["error"] == "infrastructure_failure"
        assert "max_infrastructure_failure_rate" in response.json()["detail"]
        remote = rk.RemoteReward(url)
        with pytest.raises(rk.InfrastructureError, match="infrastructure failures"):
            remote(completions=["SANDBOX_DOWN"] * 4, answer=["4"] * 4)
        assert remote.last_tries == 1  # a broken run is not retried into training on None
        assert remote(completions=["4", "5"], answer=["4", "4"]) == [1.0, 0.0]  # healthy rows still score


def test_a_reward_that_raises_on_most_rows_is_a_reward_error_not_rows_without_value(reward):
    with running(reward) as url:
        few = httpx.post(url + "/v1/score", json={"completions": ["REWARD_BUG"] * 3, "columns": {"answer": ["4"] * 3}})
        assert few.status_code == 200 and few.json()["values"] == [None] * 3  # a few rows: their own failure
        many = {"completions": ["REWARD_BUG"] * 40, "columns": {"answer": ["4"] * 40}}
        broken = httpx.post(url + "/v1/score", json=many, timeout=60)
        assert broken.status_code == 500 and broken.json()["error"] == "reward_error"
        assert "raised on 43 of the last 43 rows" in broken.json()["detail"]
        assert "cannot score REWARD_BUG" in broken.json()["detail"]
        with pytest.raises(rk.RewardError, match="the reward is broken"):
            rk.RemoteReward(url)(completions=["REWARD_BUG"] * 40, answer=["4"] * 40)
        assert httpx.post(url + "/v1/score", json={"completions": ["4"], "columns": {"answer": ["4"]}}).json()[
            "values"
        ] == [1.01]
