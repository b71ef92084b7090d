"""verl adapter: ``compute_score(data_source, solution_str, ground_truth, extra_info)`` routed to reward specs.

Point verl at it (see docs/verl.md)::

    custom_reward_function.path=<site-packages>/rewardkit/integrations/verl.py
    custom_reward_function.name=compute_score

and say which spec scores which ``data_source``: ``REWARDKIT_VERL_SPECS=/path/routes.yaml`` (a mapping of
data-source names or glob patterns to a spec file, an inline spec, or a registered reward name; ``"*"`` is
the fallback), ``REWARDKIT_VERL_SPEC=spec.yaml`` (one spec for every source), a ``spec=`` keyword (verl's
``custom_reward_function.reward_kwargs``), or :func:`register` in Python.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rewardkit._errors import ConfigError
from rewardkit.integrations.verl_reward_loop import compute_score_async, size_pools
from rewardkit.integrations.verl_routes import (
    DETAILS_ENV,
    FALLBACK,
    SPEC_ENV,
    SPECS_ENV,
    configure,
    group_means,
    prompt_key,
    register,
    reset,
    reward_for,
    routes,
    row_batch,
    row_result,
    want_details,
)
from rewardkit.rewards.base import Reward, guarded_score

__all__ = [
    "DETAILS_ENV",
    "FALLBACK",
    "SPECS_ENV",
    "SPEC_ENV",
    "compute_score",
    "compute_score_async",
    "compute_score_batch",
    "configure",
    "register",
    "reset",
    "routes",
]


def compute_score(
    data_source: str,
    solution_str: str,
    ground_truth: Any,
    extra_info: Mapping[str, Any] | None = None,
    spec: Mapping[str, Any] | str | None = None,
    **kwargs: Any,
) -> float | dict[str, Any]:
    """verl's reward-function signature: the score of one response (a float, or a dict with ``"score"``).

    ``ground_truth`` becomes the row's ``answer`` column (what verifier-backed rewards read by default);
    ``extra_info``'s keys become columns too (``ground_truth`` wins over an ``answer`` key there), and
    ``data_source`` is a column, so specs can filter on it with ``where:``. A row with no reward (None: the
    reward does not apply, or the verifier failed for the system's reasons) scores 0.0, since verl needs a
    number and one row alone has no group to stand in for; :func:`compute_score_batch` does better.
    Other keyword arguments verl passes are ignored.
    """
    out = compute_score_batch(
        [data_source],
        [solution_str],
        [ground_truth],
        [extra_info],
        spec=spec,
    )
    return out[0]


def compute_score_batch(
    data_sources: Sequence[str],
    solution_strs: Sequence[str],
    ground_truths: Sequence[Any],
    extra_infos: Sequence[Mapping[str, Any] | None] | None = None,
    spec: Mapping[str, Any] | str | None = None,
    **kwargs: Any,
) -> list[float | dict[str, Any]]:
    """verl's batch reward manager signature (``reward_model.reward_manager=batch``): one call per step.

    Rows are grouped by route, and each group is one reward call (one verifier batch). A row with no reward
    (None: an infrastructure failure, or a reward that does not apply) scores the mean of the scored rows of
    the same prompt in this call (same ``data_source``, ``ground_truth`` and ``extra_info["index"]``), so
    verl's GRPO gives it no advantage and its neighbours keep their baseline; 0.0 when none of them scored.
    """
    n = len(solution_strs)
    if not (len(data_sources) == len(ground_truths) == n):
        raise ConfigError(
            f"verl: got {len(data_sources)} data_sources, {n} solution_strs and {len(ground_truths)} ground_truths"
        )
    infos = list(extra_infos) if extra_infos is not None else [None] * n
    groups: dict[int, tuple[Reward, list[int]]] = {}
    for i, source in enumerate(data_sources):
        reward = reward_for(str(source), spec)
        groups.setdefault(id(reward), (reward, []))[1].append(i)
    results: list[float | dict[str, Any]] = [0.0] * n
    details = want_details()
    for reward, rows in groups.values():
        size_pools(reward)
        batch = row_batch(
            [solution_strs[i] for i in rows],
            [ground_truths[i] for i in rows],
            [str(data_sources[i]) for i in rows],
            [infos[i] for i in rows],
        )
        scored = guarded_score(reward, batch, reward.name)
        stand_ins = group_means(scored.values, [prompt_key(data_sources[i], ground_truths[i], infos[i]) for i in rows])
        for j, i in enumerate(rows):
            results[i] = row_result(scored, j, details, stand_in=stand_ins[j])
    return results


if __name__ != "rewardkit.integrations.verl":
    # verl loads custom_reward_function.path as a file, under another module name: share the package's routes.
    import importlib

    _package = importlib.import_module("rewardkit.integrations.verl")

    register, configure, reset, routes = _package.register, _package.configure, _package.reset, _package.routes
    compute_score, compute_score_batch = _package.compute_score, _package.compute_score_batch
    compute_score_async = _package.compute_score_async
