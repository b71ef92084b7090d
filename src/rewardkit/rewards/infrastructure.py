"""Rows the system failed to judge: no reward for them (None), one retry for a sandbox, a stop when most fail.

A verdict whose status is an infrastructure failure (``sandbox_error``, ``error``, ``invalid_reference``,
``judge_error``: :func:`rewardkit.verifiers.verdict.is_infrastructure_failure`) says nothing about the completion, so a
verifier-backed reward gives its row None, never 0.0: TRL then leaves the row out of its group's baseline
and gives it no advantage. A run where most rows fail that way is broken (a dead Docker engine, a dataset
column holding no answers); :class:`FailureWatch` stops it with :class:`InfrastructureError` instead of
letting it train on nothing.
"""

from __future__ import annotations

import threading
from collections import Counter, deque
from collections.abc import Iterable

from rewardkit._errors import ConfigError, InfrastructureError
from rewardkit.verifiers.verdict import INFRASTRUCTURE_STATUSES, is_infrastructure_failure

DEFAULT_MAX_RATE = 0.5
DEFAULT_WINDOW = 256
MIN_ROWS = 32  # a rate over fewer judged rows says little (one bad batch of 8 is not a broken run)


def check_threshold(reward: str, max_rate: float | None, window: int) -> None:
    """A clear ConfigError for a threshold outside [0, 1] or a window under 1."""
    if max_rate is not None and (isinstance(max_rate, bool) or not 0.0 <= float(max_rate) <= 1.0):
        raise ConfigError(
            f"reward {reward!r}: max_infrastructure_failure_rate must be a fraction in [0, 1] "
            f"(or null to never stop), got {max_rate!r}"
        )
    if isinstance(window, bool) or not isinstance(window, int) or window < 1:
        raise ConfigError(f"reward {reward!r}: infrastructure_failure_window must be an integer >= 1, got {window!r}")


class FailureWatch:
    """The share of infrastructure failures among a reward's last ``window`` judged rows.

    :meth:`record` raises :class:`InfrastructureError` once that share passes ``max_rate`` over at least
    ``min(window, 32)`` rows; ``max_rate=None`` never stops (the rows still get None).
    """

    def __init__(self, reward: str, max_rate: float | None = DEFAULT_MAX_RATE, window: int = DEFAULT_WINDOW) -> None:
        check_threshold(reward, max_rate, window)
        self.reward = reward
        self.max_rate = None if max_rate is None else float(max_rate)
        self.window = window
        self._recent: deque[str] = deque(maxlen=window)
        self._lock = threading.Lock()

    def record(self, statuses: Iterable[str | None]) -> None:
        with self._lock:
            self._recent.extend(str(s) for s in statuses if s is not None)
            recent = list(self._recent)
        if self.max_rate is None or len(recent) < min(self.window, MIN_ROWS):
            return
        failed = Counter(s for s in recent if is_infrastructure_failure(s))
        rate = sum(failed.values()) / len(recent)
        if rate > self.max_rate:
            with self._lock:
                self._recent.clear()  # a caller that catches the error and goes on starts counting afresh
            kinds = ", ".join(f"{status} {count}" for status, count in failed.most_common())
            raise InfrastructureError(
                f"reward {self.reward!r}: {sum(failed.values())} of its last {len(recent)} judged rows "
                f"({rate:.0%}) were infrastructure failures ({kinds}), above max_infrastructure_failure_rate="
                f"{self.max_rate}; those rows got no reward (None), but a run made mostly of them is broken. "
                f"Check the sandbox engine (sandbox_error), the verifier's log (error), the judge endpoint "
                f"(judge_error) and the reference column (invalid_reference), or raise the threshold (null never stops)"
            )

    def __getstate__(self) -> dict[str, object]:
        state = self.__dict__.copy()
        state["_lock"] = None
        return state

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()


__all__ = ["INFRASTRUCTURE_STATUSES", "FailureWatch", "check_threshold", "is_infrastructure_failure"]
