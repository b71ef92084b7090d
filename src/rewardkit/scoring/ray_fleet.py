"""A fault-tolerant set of Ray actors that each hold one reward, and hand out chunks of a batch to them.

Imported only where ray is installed (``ray_executor`` imports it lazily). Work in flight is bounded (a few
chunks per actor); a chunk whose actor or node dies is run again on another actor, a bounded number of
times, and the dead actor is replaced. Nothing here waits without a deadline.
"""

from __future__ import annotations

import os
import time
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import ray

from rewardkit._errors import RewardkitError
from rewardkit.rewards.base import Scored
from rewardkit.rewards.inputs import Batch

# Faults of the cluster, not of the reward: the chunk is run again elsewhere.
INFRASTRUCTURE_ERRORS: tuple[type[BaseException], ...] = (
    ray.exceptions.RayActorError,
    ray.exceptions.WorkerCrashedError,
    ray.exceptions.NodeDiedError,
    ray.exceptions.ObjectLostError,
    ray.exceptions.LocalRayletDiedError,
    ray.exceptions.OutOfMemoryError,
)
START_FAILURES_PER_SLOT = 3


class RewardActor:
    """Lives on a Ray worker: builds the reward once, keeps its verifier pools warm, scores chunks."""

    def __init__(self, spec: Mapping[str, Any]) -> None:
        from rewardkit.rewards.api import build_reward

        self.reward = build_reward(spec)
        context = ray.get_runtime_context()
        self.where = {"node_id": context.get_node_id(), "actor_id": context.get_actor_id(), "pid": os.getpid()}

    def ready(self) -> dict[str, Any]:
        return self.where

    def score(self, chunk: dict[str, Any]) -> tuple[Scored, float]:
        start = time.perf_counter()
        scored = self.reward.score(Batch(**chunk))
        return scored, time.perf_counter() - start

    def close(self) -> None:
        self.reward.close()


@dataclass
class Slot:
    """One actor place in the fleet; its actor is replaced when it dies."""

    handle: Any
    ready_ref: Any
    where: dict[str, Any] | None = None
    busy: int = 0
    exclusive: bool = False
    start_failures: int = 0
    gave_up: str | None = None


@dataclass
class ChunkOutcome:
    scored: Scored | None = None
    error: str | None = None
    actor_id: str | None = None
    node_id: str | None = None
    seconds: float = 0.0
    attempts: int = 0


@dataclass
class FleetOptions:
    actors: int
    num_cpus: float = 1.0
    in_flight_per_actor: int = 2
    max_retries: int = 2
    task_timeout: float = 600.0
    start_timeout: float = 120.0


@dataclass
class RunStats:
    """What one ``run`` did: where each chunk ran, how often chunks were retried, actors replaced."""

    chunks: list[ChunkOutcome] = field(default_factory=list)
    retries: int = 0
    replaced: int = 0
    seconds: float = 0.0


class ActorFleet:
    """``options.actors`` reward actors; :meth:`run` scores a list of chunks on them, results in order."""

    def __init__(self, spec: Mapping[str, Any], options: FleetOptions) -> None:
        self.spec = dict(spec)
        self.options = options
        self.remote_class: Any = ray.remote(RewardActor).options(
            num_cpus=options.num_cpus, max_restarts=0, max_task_retries=0
        )
        self.slots = [self._new_slot() for _ in range(options.actors)]

    def _new_slot(self, failures: int = 0) -> Slot:
        handle = self.remote_class.remote(self.spec)
        return Slot(handle, handle.ready.remote(), start_failures=failures)

    def _replace(self, index: int, handle: Any, started: bool, reason: str, stats: RunStats) -> None:
        slot = self.slots[index]
        if slot.handle is not handle:
            return  # replaced already, by an earlier failure of the same actor
        ray.kill(handle, no_restart=True)
        failures = 0 if started else slot.start_failures + 1
        fresh = self._new_slot(failures)
        if failures >= START_FAILURES_PER_SLOT:
            ray.kill(fresh.handle, no_restart=True)
            fresh.gave_up = f"an actor failed to start {failures} times in a row: {reason}"
            fresh.ready_ref = None
        self.slots[index] = fresh
        stats.replaced += 1

    def run(self, chunks: Sequence[dict[str, Any]]) -> RunStats:
        """Each chunk's outcome, in order: a Scored, or an error after ``max_retries`` retries."""
        opts = self.options
        for slot in self.slots:  # work of an earlier run that ended in an error is no longer waited for
            slot.busy, slot.exclusive = 0, False
        stats = RunStats(chunks=[ChunkOutcome() for _ in chunks])
        pending = deque(range(len(chunks)))
        in_flight: dict[Any, tuple[int, int, Any, float]] = {}  # ref -> chunk, slot, actor handle, sent at
        started = last_progress = time.monotonic()
        while pending or in_flight:
            self._dispatch(chunks, pending, in_flight, stats)
            waiting = list(in_flight) + [s.ready_ref for s in self.slots if s.ready_ref is not None]
            if not waiting:
                reasons = {s.gave_up for s in self.slots if s.gave_up}
                self._fail(pending, stats, "no Ray actor can run: " + "; ".join(sorted(reasons)))
                break
            done, _ = ray.wait(waiting, num_returns=1, timeout=1.0)
            for ref in done:
                if ref in in_flight:
                    self._collect(ref, in_flight.pop(ref), pending, stats)
                else:
                    self._slot_ready(ref, stats)
                last_progress = time.monotonic()
            now = time.monotonic()
            for _rows, _slot, handle, sent in list(in_flight.values()):
                if now - sent > opts.task_timeout:  # stuck: kill its actor, which fails its refs (retried)
                    ray.kill(handle, no_restart=True)
            if pending and not in_flight and now - last_progress > opts.start_timeout:
                self._fail(pending, stats, f"no Ray actor became available within {opts.start_timeout:.0f}s")
        stats.seconds = time.monotonic() - started
        return stats

    def _dispatch(
        self,
        chunks: Sequence[dict[str, Any]],
        pending: deque[int],
        in_flight: dict[Any, tuple[int, int, Any, float]],
        stats: RunStats,
    ) -> None:
        """Send pending chunks to ready actors, at most ``in_flight_per_actor`` each. A chunk being retried
        goes alone to an idle actor, so a chunk that kills its actor every time costs no other chunk a try."""
        while pending:
            chunk = pending[0]
            retry = stats.chunks[chunk].attempts > 0
            free = [
                i
                for i, s in enumerate(self.slots)
                if s.where is not None
                and not s.exclusive
                and (s.busy == 0 if retry else s.busy < self.options.in_flight_per_actor)
            ]
            if not free:
                return
            index = min(free, key=lambda i: self.slots[i].busy)
            slot = self.slots[index]
            pending.popleft()
            slot.busy += 1
            slot.exclusive = retry
            in_flight[slot.handle.score.remote(chunks[chunk])] = (chunk, index, slot.handle, time.monotonic())

    def _slot_ready(self, ref: Any, stats: RunStats) -> None:
        index = next(i for i, s in enumerate(self.slots) if s.ready_ref is not None and s.ready_ref == ref)
        slot = self.slots[index]
        try:
            slot.where = ray.get(ref)
            slot.ready_ref = None
            slot.start_failures = 0
        except ray.exceptions.RayError as exc:
            self._replace(index, slot.handle, False, _reason(exc), stats)

    def _collect(self, ref: Any, sent: tuple[int, int, Any, float], pending: deque[int], stats: RunStats) -> None:
        chunk, index, handle, _ = sent
        slot = self.slots[index]
        if slot.handle is handle:
            slot.busy -= 1
            slot.exclusive = slot.exclusive and slot.busy > 0
        outcome = stats.chunks[chunk]
        outcome.attempts += 1
        try:
            outcome.scored, outcome.seconds = ray.get(ref)
            where = slot.where if slot.handle is handle and slot.where else {}
            outcome.actor_id, outcome.node_id = where.get("actor_id"), where.get("node_id")
            return
        except ray.exceptions.RayTaskError as exc:
            # The reward itself failed (a missing column): the same error as in-process, not retried.
            if isinstance(exc.cause, RewardkitError):
                raise exc.cause from None
            if not isinstance(exc.cause, INFRASTRUCTURE_ERRORS):
                raise
            reason = _reason(exc.cause)
        except INFRASTRUCTURE_ERRORS as exc:
            reason = _reason(exc)
        self._replace(index, handle, True, reason, stats)
        if outcome.attempts > self.options.max_retries:
            outcome.error = f"{reason} (tried {outcome.attempts} times)"
        else:
            stats.retries += 1
            pending.appendleft(chunk)

    @staticmethod
    def _fail(pending: deque[int], stats: RunStats, reason: str) -> None:
        while pending:
            stats.chunks[pending.popleft()].error = reason

    def close(self) -> None:
        live = [s.handle for s in self.slots if s.gave_up is None]
        started = [s.handle for s in self.slots if s.where is not None]
        try:  # end the verifiers' worker processes cleanly; the kill below is the backstop
            ray.get([h.close.remote() for h in started], timeout=10)
        except Exception:  # noqa: BLE001 - a dead or unplaced actor has nothing to close
            pass
        for handle in live:
            ray.kill(handle, no_restart=True)
        self.slots = []


def _reason(exc: BaseException) -> str:
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {first[:300]}"
