"""``environment_reward``: the environment's own reward for each rollout, for TRL's ``environment_factory``.

TRL passes reward functions ``environments``, one environment instance per completion. An environment that
owns its reward has a method for it (TRL's ``get_reward()``, taking no argument and returning a float, maybe
a coroutine); this reward calls it per row, so the environment's score can sit in a spec beside verifiers,
under gates and weights. A row whose environment has no such method is scored by ``fallback`` (a spec node,
``tool_call_accuracy`` for instance) or gets None (status ``no_environment``); a method that raises or
returns something other than a finite number gets None (``environment_error``, an infrastructure failure).
"""

from __future__ import annotations

import asyncio
import inspect
import math
import threading
from collections.abc import Mapping
from typing import Any

from rewardkit._errors import ConfigError
from rewardkit.rewards.base import Reward, Scored
from rewardkit.rewards.combinators import Term
from rewardkit.rewards.inputs import Batch
from rewardkit.rewards.length_count import correctness_term, judge
from rewardkit.verifiers.verdict import Status

NO_ENVIRONMENT = "no_environment"


def _settle(result: Any) -> Any:
    """A coroutine's result, run on its own loop (on a fresh thread when this one already runs a loop)."""
    if not inspect.isawaitable(result):
        return result
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(_awaited(result))
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = asyncio.run(_awaited(result))
        except BaseException as exc:  # noqa: BLE001 - handed back to the calling thread
            box["error"] = exc

    worker = threading.Thread(target=run, name="rewardkit-environment-reward")
    worker.start()
    worker.join()
    if "error" in box:
        raise box["error"]
    return box["value"]


async def _awaited(result: Any) -> Any:
    return await result


class EnvironmentReward(Reward):
    """Each rollout's environment scores it with its own ``method`` (``get_reward`` by default)."""

    def __init__(self, *, method: str = "get_reward", fallback: str | Mapping[str, Any] | None = None) -> None:
        super().__init__("environment_reward")
        if not isinstance(method, str) or not method.isidentifier():
            raise ConfigError(f"environment_reward: method must be a method name, got {method!r}")
        self.method = method
        self.fallback = correctness_term(self.name, fallback) if fallback is not None else None

    def all_terms(self) -> list[Term]:
        """The fallback term, so tools that walk a reward's verifiers (the audit, ``--reference-key``) see it."""
        return [Term(self.fallback.name, self.fallback)] if self.fallback is not None else []

    def score(self, batch: Batch) -> Scored:
        n = len(batch)
        if batch.environments is None:
            raise ConfigError(
                "environment_reward needs TRL's environments (GRPOTrainer(environment_factory=...)), one per "
                f"completion; this call passed none for its {n} completions"
            )
        values: list[float | None] = [None] * n
        statuses: list[str | None] = [None] * n
        extracted: list[str | None] = [None] * n
        errors = 0
        unowned = []
        for i, environment in enumerate(batch.environments):
            own = getattr(environment, self.method, None) if environment is not None else None
            if not callable(own):
                unowned.append(i)
                continue
            try:
                value = _settle(own())
                if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                    raise TypeError(f"{self.method}() returned {value!r}, not a finite number")
            except Exception as exc:  # noqa: BLE001 - one environment's failure must not crash the batch
                statuses[i], extracted[i] = Status.ENVIRONMENT_ERROR, f"{type(exc).__name__}: {exc}"[:300]
                errors += 1
                continue
            values[i], statuses[i] = float(value), Status.OK
        if unowned and self.fallback is not None:
            sub = batch.subset(unowned)
            scored, judged, answers = judge(self.fallback, sub, self.fallback.name)
            for j, i in enumerate(unowned):
                values[i], statuses[i], extracted[i] = scored[j], judged[j], answers[j]
        else:
            for i in unowned:
                statuses[i] = NO_ENVIRONMENT
        metrics = {"environment_share": (n - len(unowned)) / n} if n else {}
        if errors:
            metrics["environment_errors"] = float(errors)
        return Scored.leaf(self.name, values, statuses, extracted, metrics)

    def close(self) -> None:
        if self.fallback is not None:
            self.fallback.close()
