"""The killable worker pool: deadlines from any thread, dead workers replaced, nothing left behind."""

from __future__ import annotations

import os
import threading
import time

import pytest

from rewardkit.verifiers.worker_pool import TASK_ERROR, TASK_OK, TASK_TIMEOUT, WorkerPool


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_runs_a_task_and_returns_its_value():
    with WorkerPool("builtins:len", workers=1) as pool:
        assert pool.run("abcd", timeout=5) .value == 4
        assert pool.run("abcd", timeout=5).status == TASK_OK


def test_soft_timeout_interrupts_python_code_and_keeps_the_worker():
    with WorkerPool("time:sleep", workers=1) as pool:
        result = pool.run(30, timeout=0.3)
        assert result.status == TASK_TIMEOUT
        assert pool.restarts == 0
        assert pool.run(0, timeout=5).status == TASK_OK


def test_hard_deadline_kills_a_worker_that_defeats_the_soft_one_and_replaces_it(monkeypatch):
    here = os.path.dirname(__file__)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [here, os.environ.get("PYTHONPATH")])))
    with WorkerPool("pool_targets:ignore_alarm_and_sleep", workers=1, grace=0.3) as pool:
        start = time.monotonic()
        result = pool.run(60, timeout=0.3)
        elapsed = time.monotonic() - start
        assert result.status == TASK_TIMEOUT
        assert elapsed < 5
        assert pool.restarts == 1
        assert pool.run(0, timeout=5).value == "woke"


def test_a_worker_that_dies_is_reported_and_replaced():
    with WorkerPool("os:_exit", workers=1) as pool:
        result = pool.run(3, timeout=5)
        assert result.status == TASK_ERROR
        assert "worker died" in (result.error or "")
        assert pool.restarts == 1
    with WorkerPool("builtins:int", workers=1) as pool:
        assert pool.run("not a number", timeout=5).status == TASK_ERROR
        assert pool.run("7", timeout=5).value == 7


def test_deadline_works_when_called_from_a_non_main_thread():
    results = []
    with WorkerPool("time:sleep", workers=2) as pool:
        threads = [threading.Thread(target=lambda: results.append(pool.run(30, timeout=0.3))) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=10)
    assert [r.status for r in results] == [TASK_TIMEOUT, TASK_TIMEOUT]


def test_a_stuck_task_does_not_stall_its_neighbours_in_a_batch():
    with WorkerPool("time:sleep", workers=2) as pool:
        start = time.monotonic()
        results = pool.map([30, 0, 0, 0, 0, 0], timeout=1.0)
        elapsed = time.monotonic() - start
    assert [r.status for r in results] == [TASK_TIMEOUT] + [TASK_OK] * 5
    assert elapsed < 10


def test_close_leaves_no_worker_process():
    pool = WorkerPool("builtins:len", workers=3)
    pool.map(["a", "bb", "ccc"], timeout=5)
    pids = pool.pids()
    assert len(pids) == 3 and all(_alive(p) for p in pids)
    pool.close()
    assert not any(_alive(p) for p in pids)
    with pytest.raises(RuntimeError):
        pool.run("x", timeout=1)
