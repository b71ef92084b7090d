"""Request and token rate limits for the judge: token buckets shared by every call of one verifier.

A bucket holds at most one second's share of the per-minute rate (at least one unit) and refills
continuously, so over any window of ``t`` seconds it lets through at most ``rate/60 * (t + 1)`` units:
no burst of a whole minute's requests at start-up. A request larger than the bucket waits for a full
bucket and then goes (it would otherwise never go).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from rewardkit._errors import ConfigError


class LimitTimeout(Exception):
    """Waiting for the rate limit would pass the call's deadline."""


class TokenBucket:
    """``per_minute`` units a minute, refilled continuously; :meth:`take` blocks until there are enough."""

    def __init__(self, per_minute: float, *, clock: Callable[[], float] = time.monotonic) -> None:
        if not per_minute > 0:
            raise ConfigError(f"judge: a per-minute limit must be positive, got {per_minute!r}")
        self.rate = per_minute / 60.0
        self.capacity = max(1.0, self.rate)
        self._level = self.capacity
        self._clock = clock
        self._stamp = clock()
        self._cond = threading.Condition()

    def _refill(self) -> None:
        now = self._clock()
        self._level = min(self.capacity, self._level + (now - self._stamp) * self.rate)
        self._stamp = now

    def take(self, amount: float, deadline: float | None = None) -> None:
        """Take ``amount`` (capped at the capacity), waiting as long as needed, but never past ``deadline``."""
        need = min(float(amount), self.capacity)
        with self._cond:
            while True:
                self._refill()
                if self._level >= need:
                    self._level -= need
                    return
                wait = (need - self._level) / self.rate
                if deadline is not None and self._clock() + wait > deadline:
                    raise LimitTimeout(f"the rate limit would hold this call past its deadline ({wait:.1f}s)")
                self._cond.wait(wait)

    def adjust(self, amount: float) -> None:
        """Give back (``amount`` > 0) or charge (< 0) units after the fact: an estimate corrected by usage."""
        with self._cond:
            self._refill()
            self._level = min(self.capacity, self._level + amount)
            self._cond.notify_all()


class Limits:
    """The judge's limits together: at most ``max_concurrency`` calls in flight, and the optional RPM/TPM."""

    def __init__(
        self, max_concurrency: int, requests_per_minute: float | None, tokens_per_minute: float | None
    ) -> None:
        self.max_concurrency = max_concurrency
        self.in_flight = threading.BoundedSemaphore(max_concurrency)
        self.requests = TokenBucket(requests_per_minute) if requests_per_minute else None
        self.tokens = TokenBucket(tokens_per_minute) if tokens_per_minute else None

    def admit(self, estimated_tokens: int, deadline: float) -> None:
        """Wait for one request's share and its estimated tokens; :class:`LimitTimeout` past the deadline."""
        if self.requests is not None:
            self.requests.take(1, deadline)
        if self.tokens is not None:
            self.tokens.take(estimated_tokens, deadline)

    def settle(self, estimated_tokens: int, used_tokens: int | None) -> None:
        """Correct the token bucket once the response says how many tokens the call really used."""
        if self.tokens is not None and used_tokens is not None:
            self.tokens.adjust(estimated_tokens - used_tokens)


def estimate_tokens(messages: list[dict[str, str]], max_tokens: int) -> int:
    """A call's tokens before it is made: about four characters a token of prompt, plus ``max_tokens``."""
    chars = sum(len(m.get("content", "")) for m in messages)
    return chars // 4 + 8 * len(messages) + max_tokens
