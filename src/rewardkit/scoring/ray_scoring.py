"""Score rows on a Ray cluster: one reward per actor, rows split into shards, results in input order.

Each actor of a fault-tolerant fleet (:mod:`rewardkit.scoring.ray_fleet`) builds the reward from the spec
once and scores every batch it is handed, so its verifiers' worker pools stay warm; the driver turns each
batch's result into the row fields of ``rewardkit score`` (:func:`~rewardkit.rewards.base.scored_row`).
For inputs larger than memory, ``rewardkit score --ray`` streams through Ray Data instead
(:mod:`rewardkit.scoring.ray_data_scoring`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from rewardkit._errors import ConfigError
from rewardkit._install import extra_hint

RAY_MISSING = f"scoring on Ray needs ray, which is not installed: {extra_hint('ray')}"


def resolve_spec(spec: Mapping[str, Any] | str | Path) -> dict[str, Any]:
    """The spec as a plain dict, read here so a cluster's nodes need not see the file; checked by building it
    once (verifier pools start lazily, so this is cheap) so a bad spec fails before any Ray work starts."""
    from rewardkit.rewards.spec import load_spec
    from rewardkit.scoring.loading import resolve_reward

    data = dict(load_spec(spec))
    resolve_reward(data).close()
    return data


def start_ray(ray: Any, address: str | None, num_cpus: int | None) -> bool:
    """Join the cluster at ``address``, or start a local one of ``num_cpus`` CPUs (default: all), unless Ray
    is up already; True when this call started it (the caller shuts it down when done)."""
    if ray.is_initialized():
        return False
    if address is not None:
        ray.init(address=address, log_to_driver=False)
    else:  # "local": a new cluster even where RAY_ADDRESS or `ray start` points at another one
        ray.init(
            address="local", num_cpus=num_cpus or os.cpu_count() or 1, include_dashboard=False, log_to_driver=False
        )
    return True


def split_shards(rows: Sequence[dict[str, Any]], shards: int) -> list[list[dict[str, Any]]]:
    """``rows`` in ``shards`` contiguous pieces of near-equal size (no empty piece), in order."""
    if shards < 1:
        raise ConfigError(f"shards must be >= 1, got {shards}")
    count = min(shards, len(rows))
    if count == 0:
        return []
    size, extra = divmod(len(rows), count)
    out, start = [], 0
    for i in range(count):
        end = start + size + (i < extra)
        out.append(list(rows[start:end]))
        start = end
    return out


def score_on_ray(
    spec: Mapping[str, Any] | str | Path,
    rows: Sequence[dict[str, Any]],
    *,
    shards: int | None = None,
    address: str | None = None,
    actors: int | None = None,
    num_cpus: int | None = None,
    batch_size: int = 64,
    completion_key: str = "completion",
    prompt_key: str = "prompt",
    on_shard: Callable[[int], None] | None = None,
    max_retries: int = 2,
) -> list[dict[str, Any]]:
    """Each row's reward fields (``reward``, ``components``, ``status``, ``extracted``, ``verdicts``), in input
    order, scored on Ray; the same values as :func:`~rewardkit.scoring.batch_scoring.score_rows` in-process.

    ``spec``: a dict or a YAML/JSON spec path (as :func:`rewardkit.build_reward`). Ray is used as found: an
    already initialised Ray in this process; else the cluster at ``address`` (``"auto"``, ``"host:6379"`` or
    ``"ray://host:10001"``); else a new local cluster with ``num_cpus`` CPUs (default: this machine's), shut
    down again at the end. ``actors`` (default: the cluster's CPUs, at most ``shards``) each hold one reward, one
    CPU each. ``shards`` (default: 4 per actor, at most one per row) are cut into reward calls of at most
    ``batch_size`` rows, handed to whichever actor is free. A call whose actor or node dies is run again on
    another actor (``max_retries`` times, then its rows get status ``error`` and no reward); dead actors are
    replaced. ``on_shard(n)`` is called with each shard's row count once all are scored, in order.
    """
    try:
        import ray
    except ImportError:
        raise ConfigError(RAY_MISSING) from None
    if batch_size < 1:
        raise ConfigError(f"batch_size must be >= 1, got {batch_size}")
    for label, value in (("shards", shards), ("actors", actors), ("num_cpus", num_cpus)):
        if value is not None and value < 1:
            raise ConfigError(f"{label} must be >= 1 (or None for the default), got {value}")
    data = resolve_spec(spec)
    if not rows:
        return []
    from rewardkit.rewards.base import scored_row
    from rewardkit.scoring.batch_scoring import batch_of
    from rewardkit.scoring.ray_executor import chunk_rows, merge

    started_here = start_ray(ray, address, num_cpus)
    try:
        from rewardkit.scoring.ray_fleet import ActorFleet, FleetOptions

        cluster_cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
        n_actors = min(actors or cluster_cpus, shards or len(rows), len(rows))
        pieces = split_shards(rows, shards or 4 * n_actors)
        batches = [  # a row without the completion field is a ConfigError here, before any Ray work
            batch_of(piece[i : i + batch_size], completion_key, prompt_key)
            for piece in pieces
            for i in range(0, len(piece), batch_size)
        ]
        fleet = ActorFleet(data, FleetOptions(actors=n_actors, max_retries=max_retries))
        try:
            run = fleet.run([chunk_rows(batch, 0, len(batch), None) for batch in batches])
        finally:
            fleet.close()
        out: list[dict[str, Any]] = []
        for batch, outcome in zip(batches, run.chunks, strict=True):
            scored, _ = merge("reward", [(outcome.scored, len(batch))], [outcome.error])
            out.extend(scored_row(scored, i) for i in range(len(batch)))
        if on_shard is not None:
            for piece in pieces:
                on_shard(len(piece))
        return out
    finally:
        if started_here:
            ray.shutdown()
