"""Score rows on a Ray cluster: one reward per actor, rows split into shards, results in input order.

Each actor builds the reward from the spec once and scores every shard it is handed with the same
row-scoring function as ``rewardkit score`` (:func:`rewardkit.rewards.batch_scoring.score_rows`), so its
verifiers' worker pools stay warm across shards and every row gets exactly the fields it gets in-process.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from rewardkit._errors import ConfigError, RewardkitError

RAY_MISSING = "scoring on Ray needs ray, which is not installed: pip install 'rewardkit[ray]'"


class _RewardActor:
    """Holds one reward for its whole life; ``score`` runs on a shard, ``close`` ends its verifiers."""

    def __init__(self, spec: Mapping[str, Any], batch_size: int, completion_key: str, prompt_key: str) -> None:
        import rewardkit as rk

        self.reward = rk.build_reward(spec)
        self.options: dict[str, Any] = {"batch_size": batch_size, "completion_key": completion_key, "prompt_key": prompt_key}

    def score(self, shard: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        from rewardkit.rewards.batch_scoring import score_rows

        scored, _ = score_rows(self.reward, shard, **self.options)
        return scored

    def close(self) -> None:
        self.reward.close()


def resolve_spec(spec: Mapping[str, Any] | str | Path) -> dict[str, Any]:
    """The spec as a plain dict, read here so a cluster's nodes need not see the file; checked by building it
    once (verifier pools start lazily, so this is cheap) so a bad spec fails before any Ray work starts."""
    import rewardkit as rk
    from rewardkit.rewards.spec import load_spec

    data = dict(load_spec(spec))
    rk.build_reward(data).close()
    return data


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
) -> list[dict[str, Any]]:
    """Each row's reward fields (``reward``, ``components``, ``status``, ``extracted``, ``verdicts``), in input
    order, scored on Ray; the same values as :func:`~rewardkit.rewards.batch_scoring.score_rows` in-process.

    ``spec``: a dict or a YAML/JSON spec path (as :func:`rewardkit.build_reward`). Ray is used as found: an
    already initialised Ray in this process; else the cluster at ``address`` (``"auto"``, ``"host:6379"`` or
    ``"ray://host:10001"``); else a new local cluster with ``num_cpus`` CPUs (default: this machine's), shut
    down again at the end. ``actors`` (default: the cluster's CPUs, at most ``shards``) each hold one reward, one
    CPU each. ``shards`` (default: 4 per actor, at most one per row) are handed to whichever actor is free.
    ``on_shard(n)`` is called with each shard's row count as its results arrive, in order.
    """
    try:
        import ray
        from ray.util import ActorPool
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

    started_here = not ray.is_initialized()
    if started_here:
        if address is not None:
            ray.init(address=address, log_to_driver=False)
        else:
            # "local": a new cluster even where RAY_ADDRESS or `ray start` points at another one.
            ray.init(address="local", num_cpus=num_cpus or os.cpu_count() or 1, include_dashboard=False,
                     log_to_driver=False)
    try:
        cluster_cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
        n_actors = min(actors or cluster_cpus, shards or len(rows), len(rows))
        pieces = split_shards(rows, shards or 4 * n_actors)
        remote_actor: Any = ray.remote(num_cpus=1)(_RewardActor)
        handles = [remote_actor.remote(data, batch_size, completion_key, prompt_key) for _ in range(n_actors)]
        try:
            pool = ActorPool(handles)
            for piece in pieces:
                pool.submit(lambda actor, shard: actor.score.remote(shard), piece)
            out: list[dict[str, Any]] = []
            for piece in pieces:
                out.extend(_unwrap(ray, pool.get_next))
                if on_shard is not None:
                    on_shard(len(piece))
            return out
        finally:
            try:  # end the verifiers' worker processes cleanly; the kill below is the backstop
                ray.get([h.close.remote() for h in handles], timeout=30)
            except Exception:  # noqa: BLE001, S110 - a dead actor has nothing left to close
                pass
            for handle in handles:
                ray.kill(handle)
    finally:
        if started_here:
            ray.shutdown()


def _unwrap(ray: Any, get: Callable[[], Any]) -> Any:
    # A RewardkitError raised in an actor (a missing completion field) reaches the caller as itself.
    try:
        return get()
    except ray.exceptions.RayTaskError as exc:
        if isinstance(exc.cause, RewardkitError):
            raise exc.cause from None
        raise
