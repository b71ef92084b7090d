"""``rk.build_reward(spec, executor="ray")``: a TRL reward whose verification runs on Ray actors, with the
in-process values in order, bounded work in flight, and chunks of a dead actor run again elsewhere."""

from __future__ import annotations

import json
import pickle
import sys
import time
from collections import deque
from pathlib import Path

import pytest
import yaml

import rewardkit as rk
from rewardkit._errors import ConfigError
from rewardkit.scoring.batch_scoring import batch_of

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture(scope="module")
def spec() -> dict:
    data = yaml.safe_load((EXAMPLES / "mixed_spec.yaml").read_text())
    for term in data["terms"]:
        if term.get("reward") == "math_accuracy":
            term["params"] = {"timeout": 20}  # no `timeout` verdicts on a loaded 2-core machine
    return data


@pytest.fixture(scope="module")
def rows() -> list[dict]:
    return [json.loads(line) for line in (EXAMPLES / "mixed.jsonl").read_text().splitlines()[:40]]


def call(reward, rows: list[dict]) -> tuple[list, dict, dict]:
    """What TRL would see: the values, the metrics logged and the extra columns logged."""
    batch = batch_of(rows, "completion", "prompt")
    metrics: dict = {}
    extra: dict = {}
    values = reward(
        prompts=batch.prompts,
        completions=batch.completions,
        **batch.columns,
        log_metric=metrics.__setitem__,
        log_extra=extra.__setitem__,
    )
    return values, metrics, extra


@pytest.fixture(scope="module")
def expected(spec, rows):
    with rk.build_reward(spec) as reward:
        return call(reward, rows)


def test_ray_reward_gives_the_in_process_values_and_logs_from_the_driver(ray, spec, rows, expected):
    values, metrics, extra = expected
    assert len(set(values)) >= 5  # rows differ, so equal lists mean each value came back in its own place
    with rk.build_reward(spec, executor="ray", actors=2, chunk_size=3) as reward:
        assert reward.__name__ == "mixed_reward"
        got, got_metrics, got_extra = call(reward, rows)
        assert got == values
        assert {k: v for k, v in got_metrics.items() if k.startswith("rewards/")} == metrics
        assert got_extra == extra  # verdict statuses, per row
        report = reward.last_report
        assert report["rows"] == 40 and report["failed_rows"] == 0 and len(report["actors"]) == 2
        assert sum(a["rows"] for a in report["actors"].values()) == 40
        assert got_metrics["ray/mixed_reward/actors"] == 2.0
        assert len([k for k in got_metrics if k.startswith("ray/mixed_reward/actor/")]) == 2
        assert any(k.startswith("ray/mixed_reward/node/") for k in got_metrics)
        reversed_values, _, _ = call(reward, rows[::-1])
        assert reversed_values == values[::-1]
        clone = pickle.loads(pickle.dumps(reward))
    with clone:
        assert clone.__name__ == "mixed_reward" and call(clone, rows[:10])[0] == values[:10]


def test_executor_block_in_the_spec(ray, spec, rows, expected):
    block = {**spec, "executor": {"type": "ray", "actors": 1, "in_flight_per_actor": 1}}
    with rk.build_reward(block) as reward:
        assert type(reward).__name__ == "RayReward"
        assert call(reward, rows[:12])[0] == expected[0][:12]
        assert len(reward.last_report["actors"]) == 1
    local = rk.build_reward({**spec, "executor": "local"})
    assert type(local).__name__ != "RayReward"
    local.close()


def test_bad_executor_settings_are_config_errors(spec):
    with pytest.raises(ConfigError, match="unknown executor 'dask'"):
        rk.build_reward(spec, executor="dask")
    with pytest.raises(ConfigError, match=r"spec.executor.actors: expected int >= 1"):
        rk.build_reward({**spec, "executor": {"type": "ray", "actors": 0}})
    with pytest.raises(ConfigError, match="unknown option.*'actor'.*allowed: type, address, actors"):
        rk.build_reward(spec, executor="ray", actor=2)
    with pytest.raises(ConfigError, match="apply to executor 'ray' only"):
        rk.build_reward(spec, actors=2)
    with pytest.raises(ConfigError, match=r"spec.terms\[0\]"):  # the spec itself is checked on the driver
        rk.build_reward({"combine": "sum", "terms": ["no_such_reward"]}, executor="ray")


def test_missing_ray_names_the_extra(monkeypatch, spec):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "ray" else real(name, *a))
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(ConfigError, match=r"pip install -e '\.\[ray\]' in a rewardkit checkout"):
        rk.build_reward(spec, executor="ray")


def test_a_missing_column_is_the_same_config_error_as_in_process(ray, spec, rows, expected):
    with rk.build_reward(spec, executor="ray", actors=1) as reward:
        with pytest.raises(ConfigError, match="'task'"):
            reward(prompts=["p"], completions=["x"], answer=["1"])
        assert call(reward, rows[:6])[0] == expected[0][:6]  # the reward stays usable


def _on_dispatch(reward, cue):
    """Call ``cue(fleet, count, handle)`` after each chunk is sent to an actor (the fault injection point)."""
    fleet = reward._ensure_fleet()
    dispatch = fleet._dispatch
    count = [0]

    def dispatch_and_cue(chunks, pending, in_flight, stats):
        before = set(in_flight)
        dispatch(chunks, pending, in_flight, stats)
        for ref in set(in_flight) - before:
            count[0] += 1
            cue(fleet, count[0], in_flight[ref])

    fleet._dispatch = dispatch_and_cue
    return fleet


@pytest.mark.slow
def test_work_in_flight_is_bounded(ray, spec, rows, expected):
    with rk.build_reward(spec, executor="ray", actors=2, chunk_size=2, in_flight_per_actor=1) as reward:
        peak = [0]
        fleet = _on_dispatch(reward, lambda fleet, n, sent: None)
        dispatch = fleet._dispatch

        def watch(chunks, pending, in_flight, stats):
            dispatch(chunks, pending, in_flight, stats)
            peak[0] = max(peak[0], len(in_flight))

        fleet._dispatch = watch
        assert call(reward, rows)[0] == expected[0]
        assert peak[0] == 2  # 20 chunks, never more than one per actor sent ahead
        assert sum(a["rows"] for a in reward.last_report["actors"].values()) == 40


def _wait_until_dead(ray, handle) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            ray.get(handle.ready.remote(), timeout=10)
        except ray.exceptions.RayActorError:
            return
        except ray.exceptions.GetTimeoutError:
            pass
        time.sleep(0.05)
    raise AssertionError("a killed actor still answers after 120 s")


def _kill_before_sending(reward, ray, chunk_to_doom: int, times: int = 99):
    """Before chunk ``chunk_to_doom`` is sent (up to ``times`` times), kill the actor the fleet is about to send
    it to and wait until Ray reports that actor dead: the chunk then certainly dies with it (no race with a
    chunk that finishes before the kill lands). Chunks are handed to the real dispatcher one at a time."""
    fleet = reward._ensure_fleet()
    dispatch, killed = fleet._dispatch, []

    def kill_then_dispatch(chunks, pending, in_flight, stats):
        while pending:
            chunk = pending[0]
            if chunk == chunk_to_doom and len(killed) < times:
                limit = 1 if stats.chunks[chunk].attempts > 0 else fleet.options.in_flight_per_actor
                free = [
                    i for i, s in enumerate(fleet.slots) if s.where is not None and not s.exclusive and s.busy < limit
                ]
                if not free:
                    return
                handle = fleet.slots[min(free, key=lambda i: fleet.slots[i].busy)].handle  # the dispatcher's pick
                ray.kill(handle, no_restart=True)
                _wait_until_dead(ray, handle)
                killed.append(handle)
            head = deque([chunk])
            dispatch(chunks, head, in_flight, stats)
            if head:
                return  # no free actor for it yet
            pending.popleft()

    fleet._dispatch = kill_then_dispatch
    return killed


@pytest.mark.slow
def test_an_actor_killed_mid_batch_costs_no_row(ray, spec, rows, expected):
    with rk.build_reward(spec, executor="ray", actors=2, chunk_size=4) as reward:
        killed = _kill_before_sending(reward, ray, chunk_to_doom=3, times=1)
        values, metrics, extra = call(reward, rows)
        assert len(killed) == 1 and values == expected[0] and extra == expected[2]
        report = reward.last_report
        assert report["retries"] >= 1 and report["replaced_actors"] >= 1 and report["failed_rows"] == 0
        assert metrics["ray/mixed_reward/retries"] >= 1
        # The replacement serves the next call.
        assert call(reward, rows[:8])[0] == expected[0][:8]
        # Two live actors again: the replacement answers (it may not have had a chunk of that small call yet).
        slots = reward._fleet.slots
        assert len(slots) == 2
        assert all(ray.get(s.handle.ready.remote(), timeout=120)["node_id"] for s in slots)


@pytest.mark.slow
def test_a_chunk_whose_actor_always_dies_gets_status_error_after_bounded_retries(ray, spec, rows, expected):
    with rk.build_reward(spec, executor="ray", actors=2, chunk_size=4, max_retries=2) as reward:
        doomed = _kill_before_sending(reward, ray, chunk_to_doom=0)
        values, _, extra = call(reward, rows)
        assert len(doomed) == 3  # the first try and two retries
        assert values[:4] == [None] * 4 and values[4:] == expected[0][4:]
        assert reward.last_errors[:4] == [reward.last_errors[0]] * 4 and "tried 3 times" in reward.last_errors[0]
        assert "Actor" in reward.last_errors[0] and reward.last_errors[4:] == [None] * 36
        assert extra["mixed_reward/executor_error"][:4] == reward.last_errors[:4]
        for label, statuses in extra.items():
            if label.endswith("/status"):
                assert statuses[:4] == ["error"] * 4
        assert reward.last_report["failed_rows"] == 4


def test_no_room_for_any_actor_is_an_error_status_not_a_hang(ray, spec, rows):
    # 64 CPUs per actor on a 2-CPU cluster: the actor can never be placed.
    with rk.build_reward(spec, executor="ray", actors=1, num_cpus=64, start_timeout=2) as reward:
        values, _, extra = call(reward, rows[:5])
        assert values == [None] * 5
        assert reward.last_errors == ["no Ray actor became available within 2s"] * 5
        assert extra["mixed_reward/executor_error"] == reward.last_errors
        assert all(statuses == ["error"] * 5 for label, statuses in extra.items() if label.endswith("/status"))
