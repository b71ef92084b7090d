"""Killable worker processes that run one task each under a hard deadline, from any thread.

Signal-based timeouts (math-verify's, sympy's) only work on the main thread of the main interpreter,
and TRL calls rewards from other threads. Here each task runs in a worker process: the worker stops
itself with an interval timer at the soft deadline, and the parent kills it (and starts a fresh one)
if it has not answered shortly after. A stuck sample therefore costs one worker for about
``timeout + grace`` seconds and never stalls the other samples of a batch.
"""

from __future__ import annotations

import importlib
import multiprocessing
import os
import queue
import signal
import threading
import weakref
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any, Callable, Sequence

TASK_OK = "ok"
TASK_TIMEOUT = "timeout"
TASK_ERROR = "error"


class _SoftTimeout(BaseException):
    """Raised inside a worker at the soft deadline; a BaseException so ``except Exception`` can't eat it."""


@dataclass(frozen=True)
class TaskResult:
    status: str
    value: Any = None
    error: str | None = None


def _on_alarm(signum: int, frame: Any) -> None:
    raise _SoftTimeout()


def _die_with_parent() -> None:
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _worker_main(conn: Connection, target_path: str) -> None:
    _die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGALRM, _on_alarm)
    module_name, _, attr = target_path.partition(":")
    target: Callable[..., Any] = getattr(importlib.import_module(module_name), attr)
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        payload, timeout = message
        try:
            signal.setitimer(signal.ITIMER_REAL, timeout)
            try:
                value = target(payload)
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            result = TaskResult(TASK_OK, value)
        except _SoftTimeout:
            result = TaskResult(TASK_TIMEOUT)
        except Exception as exc:
            result = TaskResult(TASK_ERROR, error=f"{type(exc).__name__}: {exc}")
        try:
            conn.send(result)
        except Exception as exc:  # an unpicklable result
            conn.send(TaskResult(TASK_ERROR, error=f"result could not be sent back: {exc!r}"))


class _Worker:
    def __init__(self, ctx: Any, target_path: str) -> None:
        self.conn, child = ctx.Pipe()
        self.process = ctx.Process(target=_worker_main, args=(child, target_path), daemon=True)
        self.process.start()
        child.close()

    def kill(self) -> None:
        try:
            self.conn.close()
        except OSError:
            pass
        if self.process.is_alive():
            self.process.kill()
        self.process.join(timeout=5)


def _kill_all(workers: list[_Worker]) -> None:
    for worker in list(workers):
        worker.kill()
    workers.clear()


class WorkerPool:
    """A fixed number of worker processes running ``target(payload)`` with a deadline per task.

    ``target`` is given as ``"module:function"`` so that workers import it themselves; ``preload``
    modules are imported once in the fork server so that starting or replacing a worker is a fork.
    """

    def __init__(
        self,
        target: str,
        *,
        workers: int | None = None,
        grace: float = 0.5,
        preload: Sequence[str] = (),
        start_method: str | None = None,
    ) -> None:
        self.target = target
        self.size = max(1, workers or min(4, os.cpu_count() or 1))
        self.grace = grace
        method = start_method or ("forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn")
        self._ctx = multiprocessing.get_context(method)
        if method == "forkserver" and preload:
            self._ctx.set_forkserver_preload([*preload, target.partition(":")[0]])
        self._idle: queue.Queue[_Worker | None] = queue.Queue()
        self._all: list[_Worker] = []
        self._lock = threading.Lock()
        self._started = False
        self._closed = False
        self.restarts = 0
        self._finalizer = weakref.finalize(self, _kill_all, self._all)

    def _start(self) -> None:
        with self._lock:
            if self._closed:
                raise RuntimeError("worker pool is closed")
            if self._started:
                return
            for _ in range(self.size):
                worker = _Worker(self._ctx, self.target)
                self._all.append(worker)
                self._idle.put(worker)
            self._started = True

    def _replace(self, worker: _Worker) -> None:
        worker.kill()
        with self._lock:
            if worker in self._all:
                self._all.remove(worker)
            if self._closed:
                return
            self.restarts += 1
            fresh = _Worker(self._ctx, self.target)
            self._all.append(fresh)
        self._idle.put(fresh)

    def run(self, payload: Any, timeout: float) -> TaskResult:
        """Run one task; returns within about ``timeout + grace`` seconds of getting a worker."""
        self._start()
        worker = self._idle.get()
        if worker is None or self._closed:
            self._idle.put(None)
            return TaskResult(TASK_ERROR, error="worker pool was closed")
        try:
            worker.conn.send((payload, timeout))
            if worker.conn.poll(timeout + self.grace):
                result = worker.conn.recv()
            else:
                self._replace(worker)
                return TaskResult(TASK_TIMEOUT, error=f"killed after {timeout + self.grace:.1f}s")
        except (EOFError, OSError, BrokenPipeError) as exc:
            code = worker.process.exitcode
            self._replace(worker)
            return TaskResult(TASK_ERROR, error=f"worker died (exit code {code}): {exc!r}")
        self._idle.put(worker)
        return result

    def map(self, payloads: Sequence[Any], timeout: float) -> list[TaskResult]:
        """Run tasks in parallel on every worker; results in the order of ``payloads``."""
        if not payloads:
            return []
        with ThreadPoolExecutor(max_workers=min(self.size, len(payloads))) as threads:
            return list(threads.map(lambda p: self.run(p, timeout), payloads))

    def pids(self) -> list[int]:
        with self._lock:
            return [w.process.pid for w in self._all if w.process.pid is not None]

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
