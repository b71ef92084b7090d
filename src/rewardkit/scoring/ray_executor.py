"""Rewards whose verification runs on a Ray cluster: ``rk.build_reward(spec, executor="ray", actors=4)``.

The returned reward keeps TRL's contract (same ``__name__``, one value per completion, in order,
``log_metric``/``log_extra`` called from the driver) and pickles; each call splits its batch into chunks
scored by actors that each hold the reward built from the same spec (:mod:`rewardkit.scoring.ray_fleet`).
Ray is imported only when a Ray-backed reward is first called.
"""

from __future__ import annotations

import importlib.util
import math
import pickle
import threading
from collections.abc import Mapping
from typing import Any, cast

from rewardkit._errors import ConfigError
from rewardkit._install import extra_hint
from rewardkit.rewards.base import Reward, Scored, merge_metrics
from rewardkit.rewards.groups import group_columns, group_spans
from rewardkit.rewards.inputs import Batch

RAY_MISSING = f"executor 'ray' needs ray, which is not installed: {extra_hint('ray')}"
EXECUTORS = ("local", "ray")
# option -> (accepted types, lowest value or None, help)
RAY_OPTIONS: dict[str, tuple[tuple[type, ...], float | None, str]] = {
    "address": ((str,), None, "a Ray address: auto, host:6379 or ray://host:10001"),
    "actors": ((int,), 1, "reward actors (default: the cluster's CPUs / num_cpus)"),
    "num_cpus": ((int, float), 0.0, "CPUs Ray reserves per actor"),
    "chunk_size": ((int,), 1, "rows per actor call (default: the batch spread over every actor's slots)"),
    "in_flight_per_actor": ((int,), 1, "chunks sent to one actor at once (back-pressure)"),
    "max_retries": ((int,), 0, "times a chunk is run again after its actor or node died"),
    "task_timeout": ((int, float), 0.001, "seconds a chunk may run before its actor is killed and replaced"),
    "start_timeout": ((int, float), 0.001, "seconds to wait for any actor to start before rows get errors"),
}


def build_with_executor(spec: Mapping[str, Any], executor: str | None, options: Mapping[str, Any]) -> Reward:
    """The reward of ``spec`` (its ``executor:`` block removed) run by the executor that the block, or the
    ``executor=``/options keywords (which win), name: ``local`` (in this process) or ``ray``."""
    from rewardkit.rewards.api import build_reward

    data = dict(spec)
    block = data.pop("executor", None)
    if block is None:
        settings: dict[str, Any] = {}
    elif isinstance(block, str):
        settings = {"type": block}
    elif isinstance(block, Mapping):
        settings = dict(block)
    else:
        raise ConfigError(f"spec.executor: expected 'local', 'ray' or a mapping with type: ray, got {block!r}")
    if executor is not None:
        settings["type"] = executor
    settings.update(options)
    kind = settings.pop("type", "local")
    if kind not in EXECUTORS:
        raise ConfigError(f"spec.executor.type: unknown executor {kind!r}; expected one of: {', '.join(EXECUTORS)}")
    if kind == "local":
        if settings:
            raise ConfigError(
                f"spec.executor: option(s) {', '.join(settings)} apply to executor 'ray' only (set executor='ray')"
            )
        return build_reward(data)
    return RayReward(data, **settings)


def check_options(options: Mapping[str, Any]) -> None:
    unknown = [k for k in options if k not in RAY_OPTIONS]
    if unknown:
        raise ConfigError(
            f"spec.executor: unknown option(s) {', '.join(map(repr, unknown))}; allowed: type, {', '.join(RAY_OPTIONS)}"
        )
    for key, value in options.items():
        types, lowest, help_text = RAY_OPTIONS[key]
        if value is None:
            continue
        well_typed = isinstance(value, types) and not isinstance(value, bool)
        if not well_typed or (lowest is not None and cast(float, value) < lowest):
            expected = " or ".join(t.__name__ for t in types) + (f" >= {lowest}" if lowest is not None else "")
            raise ConfigError(f"spec.executor.{key}: expected {expected} ({help_text}), got {value!r}")


class RayReward(Reward):
    """A reward scored by Ray actors; see docs/scale-out.md. ``last_report`` describes the last call."""

    _transient = ("_fleet", "_lock", "last_run")

    def __init__(self, spec: Mapping[str, Any], **options: Any) -> None:
        check_options(options)
        from rewardkit.rewards.api import build_reward

        with build_reward(spec) as local:  # every field checked here, before any Ray work
            name = local.name
            self.group_keys = group_columns(local)  # the chunks keep these groups whole (rewards/groups.py)
        if importlib.util.find_spec("ray") is None:
            raise ConfigError(RAY_MISSING)
        super().__init__(name)
        self.whole_groups = self.group_keys is not None
        self.spec = dict(spec)
        self.options = {k: v for k, v in options.items() if v is not None}
        self.last_report: dict[str, Any] = {}
        self.last_errors: list[str | None] = []
        self._fleet: Any = None
        self._lock: threading.Lock | None = threading.Lock()
        self.last_run: Any = None

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        self._lock = threading.Lock()

    def _ensure_fleet(self) -> Any:
        import ray

        from rewardkit.scoring.ray_fleet import ActorFleet, FleetOptions

        if self._fleet is not None and ray.is_initialized():
            return self._fleet
        if not ray.is_initialized():
            if "address" in self.options:
                ray.init(address=self.options["address"], log_to_driver=False)
            else:  # RAY_ADDRESS or a `ray start` cluster on this machine, else a new local one
                ray.init(log_to_driver=False, include_dashboard=False)
        num_cpus = float(self.options.get("num_cpus", 1.0))
        cluster_cpus = float(ray.cluster_resources().get("CPU", 1))
        actors = self.options.get("actors") or max(1, int(cluster_cpus // num_cpus) if num_cpus else 1)
        fleet_keys = ("in_flight_per_actor", "max_retries", "task_timeout", "start_timeout")
        fleet_options = {k: self.options[k] for k in fleet_keys if k in self.options}
        self._fleet = ActorFleet(self.spec, FleetOptions(actors=actors, num_cpus=num_cpus, **fleet_options))
        return self._fleet

    def score(self, batch: Batch) -> Scored:
        n = len(batch)
        if n == 0:
            return Scored(values=[])
        assert self._lock is not None
        with self._lock:  # one call at a time per reward: its fleet's slots bound the work in flight
            fleet = self._ensure_fleet()
            per_call = len(fleet.slots) * fleet.options.in_flight_per_actor
            size = self.options.get("chunk_size") or max(1, math.ceil(n / per_call))
            groups = self.group_keys
            if groups is None:
                bounds = [(start, min(n, start + size)) for start in range(0, n, size)]
            else:  # a reward comparing a prompt's completions: no chunk cuts a group
                bounds = group_spans(batch, size, groups)
            state = _portable(batch.trainer_state)
            run = fleet.run([chunk_rows(batch, start, end, state) for start, end in bounds])
        self.last_run = run
        scored, errors = merge(
            self.name,
            [(o.scored, end - start) for o, (start, end) in zip(run.chunks, bounds, strict=True)],
            [o.error for o in run.chunks],
        )
        self.last_errors = errors
        self.last_report = report(run, [end - start for start, end in bounds])
        self._log_executor(batch, errors)
        return scored

    def _log_executor(self, batch: Batch, errors: list[str | None]) -> None:
        if batch.log_metric is not None:
            for key, value in flat_metrics(self.last_report).items():
                batch.log_metric(f"ray/{self.name}/{key}", value)
        if batch.log_extra is not None and any(errors):
            batch.log_extra(f"{self.name}/executor_error", list(errors))

    def close(self) -> None:
        lock = self._lock or threading.Lock()
        with lock:
            fleet, self._fleet = self._fleet, None
        if fleet is not None:
            fleet.close()


def _portable(state: Any) -> Any:
    """TRL's trainer state travels to the actors when it pickles (rewards may read the step), else None."""
    if state is None:
        return None
    try:
        pickle.dumps(state)
    except Exception:  # noqa: BLE001 - any pickling failure means the same: it stays on the driver
        return None
    return state


def chunk_rows(batch: Batch, start: int, end: int, state: Any) -> dict[str, Any]:
    return {
        "completions": batch.completions[start:end],
        "prompts": batch.prompts[start:end],
        "columns": {k: v[start:end] for k, v in batch.columns.items()},
        "completion_ids": batch.completion_ids[start:end] if batch.completion_ids is not None else None,
        "trainer_state": state,
    }


def merge(
    name: str, parts: list[tuple[Scored | None, int]], failures: list[str | None]
) -> tuple[Scored, list[str | None]]:
    """The chunks' results as one Scored over the whole batch; a failed chunk's rows get no value (None)
    and status ``error``. Also each row's error reason (None where its chunk was scored)."""
    out = Scored(values=[])
    errors: list[str | None] = []
    offset = 0
    for (scored, n), failure in zip(parts, failures, strict=True):
        out.values.extend(scored.values if scored is not None else [None] * n)
        errors.extend([failure if scored is None else None] * n)
        pairs: list[tuple[dict[str, list[Any]], dict[str, list[Any]]]] = [
            (out.components, dict(scored.components) if scored else {}),
            (out.statuses, dict(scored.statuses) if scored else {}),
            (out.extracted, dict(scored.extracted) if scored else {}),
        ]
        for mine, theirs in pairs:
            for label in theirs:
                mine.setdefault(label, [None] * offset)
            for label, values in mine.items():
                values.extend(theirs.get(label, [None] * n))
        offset += n
    out.metrics = merge_metrics([(scored.metrics, n) for (scored, n) in parts if scored is not None])
    if any(errors):
        labels = list(out.statuses) or [name]
        for label in labels:
            column = out.statuses.setdefault(label, [None] * offset)
            for i, error in enumerate(errors):
                if error:
                    column[i] = "error"
    return out, errors


def report(run: Any, sizes: list[int]) -> dict[str, Any]:
    """Rows, seconds and throughput of one call, per actor (rows / seconds it spent scoring) and per node
    (rows / the call's wall time), with the retries, failed rows and replaced actors."""
    actors: dict[str, dict[str, float]] = {}
    nodes: dict[str, dict[str, float]] = {}
    for outcome, size in zip(run.chunks, sizes, strict=True):
        if outcome.scored is None:
            continue
        actor = actors.setdefault(outcome.actor_id or "?", {"rows": 0, "seconds": 0.0, "node_id": outcome.node_id})
        actor["rows"] += size
        actor["seconds"] += outcome.seconds
        nodes.setdefault(outcome.node_id or "?", {"rows": 0})["rows"] += size
    for actor in actors.values():
        actor["rows_per_second"] = actor["rows"] / actor["seconds"] if actor["seconds"] > 0 else 0.0
    for node in nodes.values():
        node["rows_per_second"] = node["rows"] / run.seconds if run.seconds > 0 else 0.0
    rows = sum(sizes)
    return {
        "rows": rows,
        "seconds": run.seconds,
        "rows_per_second": rows / run.seconds if run.seconds > 0 else 0.0,
        "retries": run.retries,
        "failed_rows": sum(size for o, size in zip(run.chunks, sizes, strict=True) if o.scored is None),
        "replaced_actors": run.replaced,
        "actors": actors,
        "nodes": nodes,
    }


def flat_metrics(rep: Mapping[str, Any]) -> dict[str, float]:
    """``report`` as ``log_metric`` keys: totals, ``node/<id>/rows_per_second``, ``actor/<id>/rows_per_second``."""
    if not rep:
        return {}
    out = {k: float(rep[k]) for k in ("rows_per_second", "retries", "failed_rows", "replaced_actors")}
    out["actors"] = float(len(rep["actors"]))
    for node, values in rep["nodes"].items():
        out[f"node/{node[:12]}/rows_per_second"] = values["rows_per_second"]
    for actor, values in rep["actors"].items():
        out[f"actor/{actor[:12]}/rows_per_second"] = values["rows_per_second"]
    return out
