"""verl's Reward Loop: ``compute_score_async``, and verifier pools sized for many reward workers per node.

verl's default reward path runs ``reward_model.num_workers`` reward-loop workers (Ray actors, several per
node); each awaits ``compute_score`` once per sample, for every sample of its share of a step at once. The
async function here hands each call to a per-process :class:`~rewardkit.scoring.micro_batch.MicroBatcher`,
so one worker's concurrent calls become one verifier batch. It returns what ``compute_score`` returns; with
details on, every row's dict has the same keys (those of every routed spec), as verl's manager requires.

Inside a Ray actor (a verl reward worker) a verifier whose spec leaves ``workers`` unset gets
``cpu_count // REWARDKIT_VERL_WORKERS_PER_NODE`` workers (default 8 per node, at least 1), or
``REWARDKIT_VERL_POOL_WORKERS`` when set, so the workers of a node share its cores instead of each
starting ``min(4, cpu_count)`` processes.
"""

from __future__ import annotations

import inspect
import os
import sys
import threading
from collections.abc import Mapping
from typing import Any

from rewardkit._errors import ConfigError
from rewardkit.integrations import verl_routes as verl
from rewardkit.rewards.base import Reward
from rewardkit.scoring.loading import reward_leaves
from rewardkit.scoring.micro_batch import MicroBatcher

WORKERS_PER_NODE_ENV = "REWARDKIT_VERL_WORKERS_PER_NODE"
POOL_WORKERS_ENV = "REWARDKIT_VERL_POOL_WORKERS"
DEFAULT_WORKERS_PER_NODE = 8
BATCH_ROWS = 512
MAX_WAIT = 0.002  # seconds a worker's first call waits for the others of its step when the batcher is idle

_lock = threading.Lock()
_batchers: dict[int, tuple[Reward, MicroBatcher]] = {}
_sized: set[int] = set()
_keys: dict[tuple[int, ...], tuple[str, ...]] = {}


async def compute_score_async(
    data_source: str,
    solution_str: str,
    ground_truth: Any,
    extra_info: Mapping[str, Any] | None = None,
    spec: Mapping[str, Any] | str | None = None,
    **kwargs: Any,
) -> float | dict[str, Any]:
    """``compute_score`` for verl's Reward Loop (``custom_reward_function.name=compute_score_async``).

    The same routes, columns and result as ``compute_score``; concurrent calls in one process are scored
    together. A row with no reward (None) scores the mean of the scored rows of its prompt (same
    ``data_source``, ``ground_truth`` and ``extra_info["index"]``) that were scored with it, as
    ``compute_score_batch`` does for a step (0.0 when none was). Other keyword arguments verl passes
    (``reward_router_address``, ...) are ignored.
    """
    reward = verl.reward_for(str(data_source), spec)
    size_pools(reward)
    batch = verl.row_batch([solution_str], [ground_truth], [str(data_source)], [extra_info])
    scored, company, merged, start = await _batcher(reward).score_in_company(batch)
    stand_in = 0.0
    if scored.values[0] is None:  # no reward: the mean of its prompt's rows scored with it (advantage 0)
        index = company.columns.get("index", [None] * len(company))
        keys = [
            verl.prompt_key(s, t, {"index": x})
            for s, t, x in zip(company.columns["data_source"], company.columns["ground_truth"], index, strict=True)
        ]
        stand_in = verl.group_means(merged.values, keys)[start]
    details = verl.want_details()
    return verl.row_result(scored, 0, details, _detail_keys(spec) if details else (), stand_in=stand_in)


def _batcher(reward: Reward) -> MicroBatcher:
    with _lock:
        entry = _batchers.get(id(reward))
        if entry is None or entry[0] is not reward:
            batcher = MicroBatcher(reward, max_batch_rows=BATCH_ROWS, max_queue_rows=1 << 20, max_wait=MAX_WAIT)
            entry = (reward, batcher)
            _batchers[id(reward)] = entry
        return entry[1]


def forget() -> None:
    """Drop the batchers and the sizing and key records (the verl adapter's ``reset`` calls this)."""
    with _lock:
        batchers = [b for _, b in _batchers.values()]
        _batchers.clear()
        _sized.clear()
        _keys.clear()
    for batcher in batchers:
        batcher.close(drain=True, timeout=60)


def _detail_keys(spec: Any) -> tuple[str, ...]:
    """The component labels of every reward a row may be routed to: each row's dict carries all of them."""
    with verl._lock:
        rewards = [verl._built[f"spec:{spec!r}"]] if spec is not None else list(verl._built.values())
    ids = tuple(id(r) for r in rewards)
    if ids not in _keys:
        labels: dict[str, None] = {}
        for reward in rewards:
            labels.update(dict.fromkeys(component_labels(reward)))
        _keys[ids] = tuple(k for k in labels if k not in ("score", "status", "unscored"))
    return _keys[ids]


def component_labels(reward: Reward) -> list[str]:
    """The component labels ``reward`` reports, read from scoring a batch of no rows (verl's columns)."""
    from rewardkit.rewards.base import guarded_score

    try:
        return list(guarded_score(reward, verl.row_batch([], [], [], []), reward.name).components)
    except Exception:  # noqa: BLE001 - a custom reward that cannot score no rows: its labels show per row
        return []


def pool_workers() -> int | None:
    """Verifier workers per process for a reward in a verl reward worker; None outside a Ray actor."""
    explicit = os.environ.get(POOL_WORKERS_ENV, "").strip()
    if explicit:
        if not explicit.isdigit() or int(explicit) < 1:
            raise ConfigError(f"{POOL_WORKERS_ENV} must be an integer >= 1, got {explicit!r}")
        return int(explicit)
    if not _in_ray_actor():
        return None
    per_node = os.environ.get(WORKERS_PER_NODE_ENV, "").strip() or str(DEFAULT_WORKERS_PER_NODE)
    if not per_node.isdigit() or int(per_node) < 1:
        raise ConfigError(f"{WORKERS_PER_NODE_ENV} must be an integer >= 1, got {per_node!r}")
    return max(1, (os.cpu_count() or 1) // int(per_node))


def _in_ray_actor() -> bool:
    ray = sys.modules.get("ray")
    if ray is None:
        return False
    try:
        return bool(ray.is_initialized()) and ray.get_runtime_context().get_actor_id() is not None
    except Exception:  # noqa: BLE001 - any failure to ask Ray means we cannot tell: keep the defaults
        return False


def size_pools(reward: Reward) -> None:
    """Give each verifier of ``reward`` that has not started and whose spec leaves ``workers`` unset the
    per-process size of :func:`pool_workers` (once per reward)."""
    if id(reward) in _sized:
        return
    workers = pool_workers()
    with _lock:
        _sized.add(id(reward))
    if workers is None:
        return
    from rewardkit.plugins.manager import default_host

    registry = default_host().registries.verifiers
    for leaf in reward_leaves(reward):
        params = getattr(leaf, "verifier_params", None)
        name = getattr(leaf, "verifier_name", None)
        if not isinstance(params, dict) or not isinstance(name, str) or "workers" in params:
            continue
        if getattr(leaf, "_verifier", None) is not None:  # already started: its pool keeps its size
            continue
        try:
            accepts = "workers" in inspect.signature(registry.get(name)).parameters
        except (ConfigError, TypeError, ValueError):
            continue
        if accepts:
            params["workers"] = workers


verl.ON_RESET.append(forget)  # the adapter's reset drops the batchers too
