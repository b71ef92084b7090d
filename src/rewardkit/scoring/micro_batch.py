"""Rows from concurrent callers scored together: many small reward calls become one verifier batch.

A GRPO step reaches a reward service as many small requests, and verl's Reward Loop calls its reward once
per sample from many coroutines. :class:`MicroBatcher` queues those calls and scores the queued ones in one
reward call, so the verifiers' worker pools see whole batches. It is loop-agnostic: :meth:`submit` returns a
``concurrent.futures.Future`` (threads wait on it, coroutines ``await`` :meth:`score`).

Only calls with the same columns are merged, so every merged call sees what it would have seen alone (a
missing column is still a ConfigError for the call that lacks it). Merging assumes a reward scores each row
on its own; a reward that compares a prompt's completions (``whole_groups``, rewards/groups.py) has each
call scored alone, and its row isolation halves a call at group boundaries.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

from rewardkit._errors import ConfigError
from rewardkit.rewards.base import Reward, Scored, guarded_score
from rewardkit.rewards.groups import group_columns, prompt_groups
from rewardkit.rewards.inputs import Batch
from rewardkit.scoring.row_isolation import Labels, score_isolating_groups, score_isolating_rows, slice_scored

log = logging.getLogger("rewardkit.micro_batch")


class QueueFull(Exception):
    """The batcher's queue holds ``max_queue_rows`` rows already: try again later."""


class BatcherClosed(Exception):
    """The batcher is closing (draining) or closed: it takes no new calls."""


class QueueTimeout(TimeoutError):
    """A call's deadline passed while it waited in the queue (it was never scored)."""


@dataclass
class BatchStats:
    """Running totals of one batcher (read them under no lock: each is a plain int)."""

    calls: int = 0
    rows: int = 0
    batches: int = 0
    merged_calls: int = 0  # calls that shared their reward call with another
    rejected: int = 0
    expired: int = 0


@dataclass(eq=False)  # compared by identity: the queue removes exactly this call
class _Call:
    batch: Batch
    key: tuple[Any, ...]
    future: Future[Scored]
    deadline: float | None
    enqueued: float = field(default_factory=time.monotonic)
    merged: tuple[Batch, Scored, int] | None = None  # the reward call it was part of, and where its rows start


def _merge_key(batch: Batch) -> tuple[Any, ...]:
    return (tuple(sorted(batch.columns)), batch.completion_ids is not None)


def merge_batches(batches: list[Batch]) -> Batch:
    """One batch of every row of ``batches`` (which share their column names), in order."""
    if len(batches) == 1:
        return batches[0]
    first = batches[0]
    return Batch(
        completions=[c for b in batches for c in b.completions],
        prompts=[p for b in batches for p in b.prompts],
        columns={k: [v for b in batches for v in b.columns[k]] for k in first.columns},
        completion_ids=(
            [i for b in batches for i in (b.completion_ids or [])] if first.completion_ids is not None else None
        ),
    )


class MicroBatcher:
    """Score concurrent calls of one reward together, in batches of up to ``max_batch_rows`` rows.

    ``concurrency`` threads each take the calls waiting in the queue (those with the first call's columns,
    oldest first) and score them in one reward call; a call waits at most ``max_wait`` seconds for others
    to join it when a thread is idle (none when the threads are busy: then calls pile up on their own), and
    none at all when ``more_coming(waiting_calls, running_calls)`` says no other call is on its way (a
    service knows how many requests it is answering: a lone client's call is not kept waiting).
    At most ``max_queue_rows`` rows wait at once; beyond that :meth:`submit` raises :class:`QueueFull`
    (an empty queue always takes a call, however large). When a merged reward call raises, each of its
    calls is scored again alone, so an error reaches only the call that caused it; with ``isolate_rows``
    not even that: only the rows that raise get no value and status ``error`` (row_isolation.py).
    """

    def __init__(
        self,
        reward: Reward,
        *,
        max_batch_rows: int = 256,
        max_queue_rows: int = 8192,
        max_wait: float = 0.002,
        concurrency: int = 2,
        isolate_rows: bool = False,
        more_coming: Callable[[int, int], bool] | None = None,
        on_batch: Callable[[int, int, float], None] | None = None,
    ) -> None:
        if max_batch_rows < 1 or max_queue_rows < 1 or concurrency < 1 or max_wait < 0:
            raise ConfigError(
                f"micro-batcher: max_batch_rows, max_queue_rows and concurrency must be >= 1 and max_wait >= 0; "
                f"got {max_batch_rows}, {max_queue_rows}, {concurrency}, {max_wait}"
            )
        self.reward = reward
        # a reward comparing a prompt's completions sees each call alone: merged, two calls' groups would mix
        self.group_keys = group_columns(reward)
        self.max_batch_rows = max_batch_rows
        self.max_queue_rows = max_queue_rows
        self.max_wait = max_wait
        self.concurrency = concurrency
        self.isolate_rows = isolate_rows
        self.more_coming = more_coming
        self._running_calls = 0
        self._idle = 0  # threads waiting for a call
        self._lingering = 0  # threads holding a call, waiting for company
        self._labels: Labels | None = None
        self.on_batch = on_batch  # (rows, calls, seconds) after each reward call
        self.stats = BatchStats()
        self._pending: deque[_Call] = deque()
        self._queued_rows = 0
        self._rows_by_key: dict[tuple[Any, ...], int] = {}
        self._in_flight_rows = 0
        self._busy = 0
        self._cond = threading.Condition()
        self._threads: list[threading.Thread] = []
        self._closed = False
        _live.add(self)

    @property
    def queued_rows(self) -> int:
        return self._queued_rows

    @property
    def in_flight_rows(self) -> int:
        return self._in_flight_rows

    @property
    def closed(self) -> bool:
        return self._closed

    def submit(self, batch: Batch, *, timeout: float | None = None) -> Future[Scored]:
        """Queue one call; its future holds the call's own rows of the result (or the error it raised)."""
        return self._enqueue(batch, timeout).future

    async def score_in_company(
        self, batch: Batch, *, timeout: float | None = None
    ) -> tuple[Scored, Batch, Scored, int]:
        """:meth:`score`, with the reward call the rows were part of: (own rows, that call's batch, its result,
        where the own rows start in it), for a caller that looks at the rows scored beside its own."""
        call = self._enqueue(batch, timeout)
        own = await asyncio.wrap_future(call.future)
        merged_batch, merged, start = call.merged or (batch, own, 0)
        return own, merged_batch, merged, start

    def _enqueue(self, batch: Batch, timeout: float | None) -> _Call:
        future: Future[Scored] = Future()
        if len(batch) == 0:  # nothing to judge: answered here, with the labels the reward reports
            try:
                future.set_result(self._score_batch(batch))
            except Exception as exc:  # noqa: BLE001 - handed to the caller
                future.set_exception(exc)
            return _Call(batch, (), future, None)
        deadline = time.monotonic() + timeout if timeout is not None else None
        with self._cond:
            if self._closed:
                raise BatcherClosed("the reward is shutting down and takes no new calls")
            if self._queued_rows and self._queued_rows + len(batch) > self.max_queue_rows:
                self.stats.rejected += 1
                raise QueueFull(f"{self._queued_rows} rows are waiting (at most {self.max_queue_rows})")
            call = _Call(batch, _merge_key(batch), future, deadline)
            self._pending.append(call)
            self._queued_rows += len(batch)
            self._rows_by_key[call.key] = self._rows_by_key.get(call.key, 0) + len(batch)
            self.stats.calls += 1
            self._start_threads()
            # Wake a thread only when one has nothing to do, or a lingering one now has a full batch: waking
            # a lingering thread on every call would cost a GIL hand-off per call under load.
            if (self._idle and not self._lingering) or self._rows_by_key[call.key] >= self.max_batch_rows:
                self._cond.notify()
        return call

    async def score(self, batch: Batch, *, timeout: float | None = None) -> Scored:
        """:meth:`submit` for a coroutine: await the call's rows of the result."""
        return await asyncio.wrap_future(self.submit(batch, timeout=timeout))

    def __call__(self, batch: Batch, *, timeout: float | None = None) -> Scored:
        """:meth:`submit` for a thread: wait for the call's rows of the result."""
        return self.submit(batch, timeout=timeout).result()

    def close(self, *, drain: bool = True, timeout: float | None = None) -> None:
        """Take no new calls; with ``drain``, score those already queued first (else they fail with
        :class:`BatcherClosed`). Waits up to ``timeout`` seconds for the threads. Does not close the reward."""
        with self._cond:
            self._closed = True
            if not drain:
                while self._pending:
                    call = self._pending.popleft()
                    self._dequeued(call)
                    if call.future.set_running_or_notify_cancel():  # a cancelled future takes no result
                        call.future.set_exception(BatcherClosed("the reward shut down before this call was scored"))
            self._cond.notify_all()
            threads = list(self._threads)
        deadline = time.monotonic() + timeout if timeout is not None else None
        for thread in threads:
            if thread is not threading.current_thread():
                thread.join(None if deadline is None else max(0.0, deadline - time.monotonic()))

    def _start_threads(self) -> None:
        self._threads = [t for t in self._threads if t.is_alive()]
        while len(self._threads) < self.concurrency:
            thread = threading.Thread(target=self._run, name=f"rewardkit-batcher-{self.reward.name}", daemon=True)
            self._threads.append(thread)
            thread.start()

    def _run(self) -> None:
        while True:
            with self._cond:
                calls = self._take()
                if calls is None:
                    return
                rows = sum(len(c.batch) for c in calls)
                self._in_flight_rows += rows
                self._running_calls += len(calls)
                self._busy += 1
            try:
                if calls:
                    self._score(calls, rows)
            finally:
                with self._cond:
                    self._in_flight_rows -= rows
                    self._running_calls -= len(calls)
                    self._busy -= 1

    def _take(self) -> list[_Call] | None:
        """Under the lock: the next calls to score together ([] when all expired), None to stop the thread."""
        while True:
            while not self._pending:
                if self._closed:
                    return None
                self._idle += 1
                try:
                    self._cond.wait()
                finally:
                    self._idle -= 1
            first = self._pending[0]
            linger_until = first.enqueued + self.max_wait
            self._lingering += 1
            try:
                while (
                    not self._closed
                    and self._rows_by_key.get(first.key, 0) < self.max_batch_rows
                    and (self.more_coming is None or self.more_coming(len(self._pending), self._running_calls))
                ):
                    left = linger_until - time.monotonic()
                    if left <= 0:
                        break
                    self._cond.wait(left)
            finally:
                self._lingering -= 1
            if self._pending and self._pending[0] is first:
                break  # else another thread took it while this one lingered: start over
        taken: list[_Call] = []
        rows = 0
        now = time.monotonic()
        for call in list(self._pending):
            if call.key != first.key:
                continue
            if taken and (rows + len(call.batch) > self.max_batch_rows or self.group_keys is not None):
                break
            self._pending.remove(call)
            self._dequeued(call)
            if not call.future.set_running_or_notify_cancel():  # its caller gave up (a request's timeout)
                continue
            if call.deadline is not None and now > call.deadline:
                self.stats.expired += 1
                call.future.set_exception(QueueTimeout(f"waited {now - call.enqueued:.1f}s in the queue"))
                continue
            taken.append(call)
            rows += len(call.batch)
        return taken

    def _dequeued(self, call: _Call) -> None:
        self._queued_rows -= len(call.batch)
        left = self._rows_by_key[call.key] - len(call.batch)
        if left:
            self._rows_by_key[call.key] = left
        else:
            del self._rows_by_key[call.key]

    def _score(self, calls: list[_Call], rows: int) -> None:
        started = time.perf_counter()
        merged = merge_batches([c.batch for c in calls])
        try:
            scored = self._score_batch(merged)
        except Exception as exc:  # noqa: BLE001 - handed to the callers, never lost in this thread
            for call in calls:  # each call alone: an error reaches only the call (or rows) it came from
                try:
                    if len(calls) == 1 and not self.isolate_rows:
                        raise exc
                    alone = self._score_call(call.batch)
                    call.merged = (call.batch, alone, 0)
                    call.future.set_result(alone)
                except Exception as error:  # noqa: BLE001 - as above
                    call.future.set_exception(error)
            self._count(calls, rows, started)
            return
        start = 0
        for call in calls:
            stop = start + len(call.batch)
            call.merged = (merged, scored, start)
            call.future.set_result(slice_scored(scored, start, stop))
            start = stop
        self._count(calls, rows, started)

    def _score_call(self, batch: Batch) -> Scored:
        if not self.isolate_rows:
            return self._score_batch(batch)
        if self.group_keys is not None:
            groups = prompt_groups(batch, self.group_keys)
            return score_isolating_groups(self._score_batch, batch, self._known_labels(batch), groups)
        return score_isolating_rows(self._score_batch, batch, self._known_labels(batch))

    def _known_labels(self, batch: Batch) -> Labels:
        if self._labels is None:
            try:  # what the reward reports, from a call on no rows (a failed row gets these labels)
                self._labels = Labels.of(self._score_batch(batch.subset([])))
            except Exception:  # noqa: BLE001 - a reward that cannot score no rows: the failed rows get none
                return Labels()
        return self._labels

    def _score_batch(self, batch: Batch) -> Scored:
        scored = guarded_score(self.reward, batch, self.reward.name)
        if len(scored.values) != len(batch):
            raise ConfigError(
                f"reward {self.reward.name!r} returned {len(scored.values)} values for {len(batch)} completions"
            )
        if self._labels is None and len(batch):
            self._labels = Labels.of(scored)
        return scored

    def _count(self, calls: list[_Call], rows: int, started: float) -> None:
        with self._cond:
            self.stats.batches += 1
            self.stats.rows += rows
            if len(calls) > 1:
                self.stats.merged_calls += len(calls)
        if self.on_batch is not None:
            try:
                self.on_batch(rows, len(calls), time.perf_counter() - started)
            except Exception:  # an observer's bug (logged) must not stop the thread that scores
                log.exception("micro-batcher: the on_batch callback raised")


_live: weakref.WeakSet[MicroBatcher] = weakref.WeakSet()


def _forget_parent_threads() -> None:
    # A forked child has none of its parent's batcher threads: it starts its own on its first call.
    for batcher in list(_live):
        batcher._cond = threading.Condition()
        batcher._threads = []
        batcher._pending = deque()
        batcher._rows_by_key = {}
        batcher._queued_rows = batcher._in_flight_rows = batcher._busy = batcher._running_calls = 0
        batcher._idle = batcher._lingering = 0


os.register_at_fork(after_in_child=_forget_parent_threads)
