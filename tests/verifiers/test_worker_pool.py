"""The killable worker pool: deadlines from any thread, dead workers replaced, nothing left behind."""

from __future__ import annotations

import os
import signal
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
        assert pool.run("abcd", timeout=5).value == 4
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
        assert pool.retries == 0  # a task out of time is the task's fault: never run again
        assert pool.run(0, timeout=5).value == "woke"


def test_a_task_that_kills_its_worker_every_time_is_an_error_after_one_retry():
    with WorkerPool("os:_exit", workers=1) as pool:
        result = pool.run(3, timeout=5)
        assert result.status == TASK_ERROR
        assert "worker died (exit code 3)" in (result.error or "") and "after one retry" in (result.error or "")
        assert pool.restarts == 2 and pool.retries == 1
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


def _kill_soon(pool: WorkerPool, delay: float) -> threading.Thread:
    def kill() -> None:
        time.sleep(delay)
        for pid in pool.pids():
            os.kill(pid, signal.SIGKILL)

    thread = threading.Thread(target=kill)
    thread.start()
    return thread


def test_a_worker_killed_mid_task_runs_the_task_again_on_a_fresh_worker():
    with WorkerPool("time:sleep", workers=1) as pool:
        assert pool.run(0, timeout=5).status == TASK_OK  # the worker is up before the kill is timed
        killer = _kill_soon(pool, 0.5)
        result = pool.run(1.5, timeout=10)
        killer.join()
        assert result.status == TASK_OK
        assert pool.retries == 1 and pool.restarts == 1


def test_an_idle_worker_killed_between_tasks_costs_the_next_task_nothing():
    with WorkerPool("builtins:len", workers=1) as pool:
        assert pool.run("ab", timeout=5).value == 2
        (pid,) = pool.pids()
        os.kill(pid, signal.SIGKILL)
        while _alive(pid):
            time.sleep(0.01)
        assert pool.run("abc", timeout=5).value == 3
        assert pool.retries == 1


def test_math_workers_killed_mid_batch_keep_correct_answers_their_score(monkeypatch):
    import rewardkit as rk
    from rewardkit.verifiers import worker_pool

    verifier = rk.get_verifier("math", timeout=30, workers=2)
    n = 1500
    completions = [f"so the answer is \\boxed{{\\frac{{{i}}}{{{i + 1}}}}}" for i in range(n)]
    references = [f"{2 * i}/{2 * i + 2}" for i in range(n)]
    try:
        assert verifier.verify_batch(completions[:2], references[:2])[0].correct  # workers up
        pool = verifier.pool
        send, calls, kills = worker_pool._Duplex.send, [0], []

        def send_then_kill_on_cue(conn, task):  # type: ignore[no-untyped-def]
            send(conn, task)
            calls[0] += 1
            if calls[0] in (300, 700, 1100):  # SIGKILL the worker that was just handed a sample
                pid = next(w.process.pid for w in pool._all if w.conn is conn)
                os.kill(pid, signal.SIGKILL)
                kills.append(pid)

        monkeypatch.setattr(worker_pool._Duplex, "send", send_then_kill_on_cue)
        verdicts = verifier.verify_batch(completions, references)
        assert len(kills) == 3
        # each kill hit a worker holding a sample (or about to get its next one), which went to a fresh worker
        # (restarts can lag: a replacement slow to start on a loaded machine is retried as a failed start)
        assert pool.retries >= 3 and pool.restarts >= 2
        assert [v.status for v in verdicts] == ["ok"] * n, [v for v in verdicts if v.status != "ok"][:3]
        assert all(v.correct and v.score == 1.0 for v in verdicts)
    finally:
        verifier.close()
