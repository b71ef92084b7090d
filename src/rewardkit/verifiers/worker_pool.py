"""Killable worker processes that run one task each under a hard deadline, from any thread.

Signal-based timeouts (math-verify's, sympy's) only work on the main thread of the main interpreter,
and TRL calls rewards from other threads. Here each task runs in a worker process: the worker stops
itself with an interval timer at the soft deadline, and the parent kills it (and starts a fresh one)
if it has not answered shortly after. A stuck sample therefore costs one worker for about
``timeout + grace`` seconds and never stalls the other samples of a batch.
"""

from __future__ import annotations

import importlib
import os
import queue
import signal
import subprocess
import sys
import threading
import weakref
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

TASK_OK = "ok"
TASK_TIMEOUT = "timeout"
TASK_ERROR = "error"
_READY = "ready"
_START_TIMEOUT = 60.0


class _SoftTimeout(BaseException):
    """Raised inside a worker at the soft deadline; a BaseException so ``except Exception`` can't eat it."""


@dataclass(frozen=True)
class TaskResult:
    status: str
    value: Any = None
    error: str | None = None


_deadline_passed = False


def _on_alarm(signum: int, frame: Any) -> None:
    global _deadline_passed
    _deadline_passed = True
    raise _SoftTimeout()


def _worker_main(conn: Any, target_path: str) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGALRM, _on_alarm)
    module_name, _, attr = target_path.partition(":")
    target: Callable[..., Any] = getattr(importlib.import_module(module_name), attr)
    conn.send(_READY)
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        payload, timeout = message
        global _deadline_passed
        _deadline_passed = False
        try:
            signal.setitimer(signal.ITIMER_REAL, timeout)
            try:
                value = target(payload)
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            # Library code may swallow the interrupt (a bare ``except:``) and return a half-computed
            # answer: past the deadline, no answer counts.
            result = TaskResult(TASK_TIMEOUT) if _deadline_passed else TaskResult(TASK_OK, value)
        except _SoftTimeout:
            result = TaskResult(TASK_TIMEOUT)
        except Exception as exc:  # noqa: BLE001 - any failure of the task is its result
            result = TaskResult(TASK_ERROR, error=f"{type(exc).__name__}: {exc}")
        try:
            conn.send(result)
        except Exception as exc:  # noqa: BLE001 - an unpicklable result
            conn.send(TaskResult(TASK_ERROR, error=f"result could not be sent back: {exc!r}"))


class _Worker:
    """One worker: a fresh interpreter (``python -m``), so the caller's ``__main__`` is never re-run."""

    def __init__(self, target_path: str) -> None:
        to_child_r, to_child_w = os.pipe()
        from_child_r, from_child_w = os.pipe()
        self.process = subprocess.Popen(
            [sys.executable, "-m", __name__, target_path, str(to_child_r), str(from_child_w)],
            pass_fds=(to_child_r, from_child_w),
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        os.close(to_child_r)
        os.close(from_child_w)
        self.conn = _Duplex(Connection(from_child_r, writable=False), Connection(to_child_w, readable=False))

    def wait_ready(self, timeout: float) -> bool:
        try:
            return self.conn.poll(timeout) and self.conn.recv() == _READY
        except (EOFError, OSError):
            return False

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        self.conn.close()


class _Duplex:
    """A read end and a write end used as one connection."""

    def __init__(self, reader: Connection, writer: Connection) -> None:
        self.reader, self.writer = reader, writer

    def send(self, obj: Any) -> None:
        self.writer.send(obj)

    def recv(self) -> Any:
        return self.reader.recv()

    def poll(self, timeout: float) -> bool:
        return self.reader.poll(timeout)

    def close(self) -> None:
        for end in (self.reader, self.writer):
            try:
                end.close()
            except OSError:
                pass


def _kill_all(workers: list[_Worker]) -> None:
    for worker in list(workers):
        worker.kill()
    workers.clear()


class WorkerPool:
    """A fixed number of worker processes running ``target(payload)`` with a deadline per task.

    ``target`` is given as ``"module:function"``; each worker imports it once at start. A worker
    enters service only after it reports ready, so start-up time never counts against a task's
    deadline; a killed worker is replaced in the background.
    """

    def __init__(self, target: str, *, workers: int | None = None, grace: float = 0.5) -> None:
        self.target = target
        self.size = max(1, workers or min(4, os.cpu_count() or 1))
        self.grace = grace
        self._idle: queue.Queue[_Worker | None] = queue.Queue()
        self._all: list[_Worker] = []
        self._lock = threading.Lock()
        self._started = False
        self._closed = False
        self.restarts = 0
        self.retries = 0
        self._finalizer = weakref.finalize(self, _kill_all, self._all)

    def _spawn(self) -> None:
        """Start one worker and put it in service once it is ready (runs in a background thread)."""
        with self._lock:
            if self._closed:
                return
            worker = _Worker(self.target)
            self._all.append(worker)
        if worker.wait_ready(_START_TIMEOUT) and not self._closed:
            self._idle.put(worker)
            return
        worker.kill()
        with self._lock:
            if worker in self._all:
                self._all.remove(worker)
            closed = self._closed
        if not closed:
            self._idle.put(None)  # wake a waiter: it reports the failure instead of hanging

    def _start(self) -> None:
        with self._lock:
            if self._closed:
                raise RuntimeError("worker pool is closed")
            if self._started:
                return
            self._started = True
        for _ in range(self.size):
            threading.Thread(target=self._spawn, daemon=True).start()

    def _replace(self, worker: _Worker) -> None:
        worker.kill()
        with self._lock:
            if worker in self._all:
                self._all.remove(worker)
            if self._closed:
                return
            self.restarts += 1
        threading.Thread(target=self._spawn, daemon=True).start()

    def run(self, payload: Any, timeout: float) -> TaskResult:
        """Run one task; returns within about ``timeout + grace`` seconds of getting a worker (twice that
        when its worker dies under it: the task is then run once more on a fresh worker, since a worker
        killed from outside, by the OOM killer or an operator, says nothing about the task). A task that
        ran out of time is not retried, and one that kills its worker twice gets status ``error``."""
        result, died = self._run_once(payload, timeout)
        if not died:
            return result
        with self._lock:
            self.retries += 1
        again, died_again = self._run_once(payload, timeout)
        if died_again:
            return TaskResult(
                TASK_ERROR, error=f"{again.error} (after one retry on a fresh worker; first: {result.error})"
            )
        return again

    def _run_once(self, payload: Any, timeout: float) -> tuple[TaskResult, bool]:
        """The task's result, and whether its worker died under it or never started (so it may be retried)."""
        self._start()
        worker = self._idle.get()
        if worker is None:
            if self._closed:
                self._idle.put(None)
                return TaskResult(TASK_ERROR, error="worker pool was closed"), False
            threading.Thread(target=self._spawn, daemon=True).start()
            return TaskResult(TASK_ERROR, error="a worker process failed to start"), True
        try:
            worker.conn.send((payload, timeout))
            if worker.conn.poll(timeout + self.grace):
                result = worker.conn.recv()
            else:
                self._replace(worker)
                return TaskResult(TASK_TIMEOUT, error=f"killed after {timeout + self.grace:.1f}s"), False
        except (EOFError, OSError) as exc:
            try:
                code = worker.process.wait(timeout=1)
            except subprocess.TimeoutExpired:
                code = None
            self._replace(worker)
            return TaskResult(TASK_ERROR, error=f"worker died (exit code {code}): {exc!r}"), True
        self._idle.put(worker)
        return result, False

    def map(self, payloads: Sequence[Any], timeout: float) -> list[TaskResult]:
        """Run tasks in parallel on every worker; results in the order of ``payloads``."""
        if not payloads:
            return []
        with ThreadPoolExecutor(max_workers=min(self.size, len(payloads))) as threads:
            return list(threads.map(lambda p: self.run(p, timeout), payloads))

    def pids(self) -> list[int]:
        with self._lock:
            return [w.process.pid for w in self._all]

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
        self._idle.put(None)
        self._finalizer()

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


if __name__ == "__main__":
    # Run the imported module's copy so that pickled results name rewardkit's classes, not __main__'s.
    from rewardkit.verifiers import worker_pool as _module

    _module._worker_main(
        _module._Duplex(Connection(int(sys.argv[2]), writable=False), Connection(int(sys.argv[3]), readable=False)),
        sys.argv[1],
    )
