"""The reward behind the routes: one micro-batcher for every endpoint, its limits, and how a failure
becomes an HTTP answer (a row's verifier failure is never one: it is that row's status and None)."""

from __future__ import annotations

import asyncio
import logging
import math
import threading
from collections import deque
from typing import Any

from rewardkit._errors import ConfigError, InfrastructureError, RewardError, RewardkitError
from rewardkit.rewards.base import Reward, Scored
from rewardkit.rewards.inputs import Batch
from rewardkit.scoring.micro_batch import BatcherClosed, MicroBatcher, QueueFull, QueueTimeout
from rewardkit.scoring.row_isolation import PartialScored
from rewardkit.serve.metrics import ServiceMetrics
from rewardkit.serve.settings import ServeSettings

log = logging.getLogger("rewardkit.serve")
ROW_ERROR_WINDOW, ROW_ERROR_MIN_ROWS, ROW_ERROR_MAX_RATE = 256, 32, 0.5
ENDPOINTS = ("/v1/score", "/get_reward", "/reward", "/verify", "/health", "/metrics")


class Refusal(Exception):
    """The service's answer other than 200: the HTTP status, an error code, a message naming what to change."""

    def __init__(
        self, status: int, code: str, detail: str, headers: dict[str, str] | None = None, **extra: Any
    ) -> None:
        super().__init__(detail)
        self.status = status
        self.code = code
        self.detail = detail
        self.headers = headers or {}
        self.extra = extra


def finite(value: Any) -> float | None:
    """A value fit for JSON: a float, or None for None, NaN and infinities (JSON has no NaN)."""
    if value is None:
        return None
    number = float(value)
    return number if math.isfinite(number) else None


class RewardService:
    """One reward, fixed at start, scored for every endpoint through one :class:`MicroBatcher`."""

    def __init__(self, reward: Reward, settings: ServeSettings, metrics: ServiceMetrics | None = None) -> None:
        self.reward = reward
        self.settings = settings
        self.metrics = metrics or ServiceMetrics(ENDPOINTS)
        self.batcher = MicroBatcher(
            reward,
            max_batch_rows=settings.batch_rows,
            max_queue_rows=settings.queue_rows,
            max_wait=settings.batch_wait,
            concurrency=settings.concurrency,
            isolate_rows=True,
            # wait for company only while more requests are being answered than the batcher holds
            more_coming=lambda waiting, running: self.metrics.in_flight > waiting + running,
            on_batch=self.metrics.batch,
        )
        self.metrics.queue_rows = lambda: self.batcher.queued_rows
        self.metrics.in_flight_rows = lambda: self.batcher.in_flight_rows
        self.draining = False
        self._recent_rows: deque[bool] = deque(maxlen=ROW_ERROR_WINDOW)  # True: the reward raised on the row
        self._recent_lock = threading.Lock()

    @property
    def name(self) -> str:
        return self.reward.name

    def check_rows(self, rows: int, field: str) -> None:
        if rows > self.settings.max_rows:
            raise Refusal(
                413,
                "too_many_rows",
                f"{field} has {rows} rows; this service takes at most {self.settings.max_rows} per request "
                f"(--max-rows): split the batch",
            )

    def _busy(self, code: str, detail: str) -> Refusal:
        return Refusal(503 if code == "draining" else 429, code, detail, {"Retry-After": self._retry_after()})

    def _retry_after(self) -> str:
        return str(self.settings.retry_after)

    async def score(self, batch: Batch, endpoint: str) -> PartialScored:
        """The reward's result for ``batch`` (a row whose scoring raised has no value, status ``error`` and its
        reason in ``errors``), or a :class:`Refusal` saying why there is none."""
        if self.draining:
            raise self._busy("draining", "the reward service is shutting down; retry on another replica")
        timeout = self.settings.request_timeout
        try:
            future = self.batcher.submit(batch, timeout=timeout)
        except QueueFull as exc:
            raise self._busy("queue_full", f"the reward service is at capacity: {exc}") from None
        except BatcherClosed:
            raise self._busy("draining", "the reward service is shutting down; retry on another replica") from None
        try:
            scored = await asyncio.wait_for(asyncio.wrap_future(future), timeout)
        except (QueueTimeout, asyncio.TimeoutError, TimeoutError):
            future.cancel()
            raise Refusal(504, "timeout", f"the rows were not scored within {timeout:g}s (--request-timeout)") from None
        except BatcherClosed as exc:
            raise self._busy("draining", str(exc)) from None
        except ConfigError as exc:
            # The request lacks what the reward reads (a column): the request's shape, not the service.
            raise Refusal(422, "invalid_rows", str(exc)) from None
        except InfrastructureError as exc:
            # Most recent rows failed for the system's reasons: the run is broken; say so, do not train on None.
            raise Refusal(503, "infrastructure_failure", str(exc)) from None
        except RewardError as exc:
            raise Refusal(500, "reward_error", str(exc)) from None
        except RewardkitError as exc:
            raise Refusal(500, type(exc).__name__, str(exc)) from None
        return self._for_json(scored, endpoint)

    def _for_json(self, scored: Scored, endpoint: str) -> PartialScored:
        values = [finite(v) for v in scored.values]
        out = PartialScored(
            values,
            {k: [finite(v) for v in col] for k, col in scored.components.items()},
            {k: [None if s is None else str(s) for s in col] for k, col in scored.statuses.items()},
            {k: [None if e is None else str(e) for e in col] for k, col in scored.extracted.items()},
            errors=dict(getattr(scored, "errors", {})),
        )
        self.metrics.scored(endpoint, values, out.statuses, len(out.errors))
        if out.errors:
            first = min(out.errors)
            log.warning(
                "%s: %d row(s) could not be scored, e.g. row %d: %s",
                endpoint,
                len(out.errors),
                first,
                out.errors[first],
            )
        self._watch_row_errors(out)
        return out

    def _watch_row_errors(self, scored: PartialScored) -> None:
        """A reward whose own code raises on most recent rows is broken, not unlucky: say so (500), so a
        client stops as it would in-process, instead of training on rows that never get a value."""
        with self._recent_lock:
            self._recent_rows.extend(i in scored.errors for i in range(len(scored.values)))
            failed, seen = sum(self._recent_rows), len(self._recent_rows)
            if seen < ROW_ERROR_MIN_ROWS or failed / seen <= ROW_ERROR_MAX_RATE:
                return
            self._recent_rows.clear()
        example = scored.errors[min(scored.errors)] if scored.errors else "(see the server log)"
        raise Refusal(
            500,
            "reward_error",
            f"reward {self.name!r} raised on {failed} of the last {seen} rows, e.g. {example}: the reward is broken",
        )

    def start_draining(self) -> None:
        """Refuse new scoring requests (503 with Retry-After); those already queued still finish."""
        self.draining = True

    def close(self, timeout: float | None = None) -> None:
        self.draining = True
        self.batcher.close(drain=True, timeout=timeout)
