"""``rewardkit score --ray``: stream a dataset through Ray Data and score it on an actor pool.

The input (JSONL, parquet, or a ``datasets`` directory) is read by Ray Data in blocks; ``map_batches`` runs
:class:`ScoreBatch` (a callable class: each actor builds the reward once and keeps its verifier pools warm);
the driver writes each scored batch as it arrives, in input order, and keeps only running totals, so its
memory does not grow with the input. Output rows are exactly those of in-process ``rewardkit score``.
"""

from __future__ import annotations

import json
import math
import os
import time
import warnings
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from rewardkit._errors import ConfigError, RewardkitError
from rewardkit._install import extra_hint
from rewardkit._jsonl import parse_object
from rewardkit.scoring.batch_scoring import ScoreSummary, SummaryBuilder
from rewardkit.scoring.readers import count_samples, input_format, missing_completion, open_parquet, open_saved_dataset
from rewardkit.scoring.writers import json_line, open_writer, output_format

RAY_MISSING = f"scoring on Ray needs ray, which is not installed: {extra_hint('ray')}"

# Reading is light next to scoring: read tasks reserve no CPU, so an actor pool that holds every CPU of the
# cluster cannot starve them (which would stall the whole pipeline).
READ_ARGS: dict[str, Any] = {"num_cpus": 0}
DATASET_BLOCK_ROWS = 10_000
# A fixed pool (``actors`` given) starts whole before the first batch is sent, so that the work spreads over
# every actor rather than landing on whichever started first; a cluster without the CPUs for it fails.
FIXED_POOL_START_S = 300


class ScoreBatch:
    """The map_batches callable: one reward per actor; a batch of input rows in, a batch of output lines out."""

    def __init__(
        self,
        spec: Mapping[str, Any],
        completion_key: str,
        prompt_key: str,
        json_lines: bool,
        reference_key: str | None = None,
        skip_invalid: bool = False,
    ) -> None:
        import ray

        from rewardkit.scoring.loading import resolve_reward

        self.reward = resolve_reward(spec, None, reference_key)
        self.completion_key, self.prompt_key = completion_key, prompt_key
        self.json_lines, self.skip_invalid = json_lines, skip_invalid
        context = ray.get_runtime_context()
        self.node_id, self.actor_id = context.get_node_id(), context.get_actor_id()

    def __call__(self, batch: Any) -> dict[str, list[Any]]:  # a pyarrow Table in, columns out
        from rewardkit.scoring.batch_scoring import score_rows

        try:
            entries = self._valid(batch)
            rows = [row for row, _ in entries if row is not None]
            scored, summary = score_rows(
                self.reward,
                rows,
                batch_size=max(1, len(rows)),
                completion_key=self.completion_key,
                prompt_key=self.prompt_key,
            )
        except RewardkitError as exc:  # bad input, not a fault: reported to the driver as data (Ray Data
            # wraps exceptions raised here in its own, losing the type)
            return {
                "line": [""],
                "scored": [""],
                "node_id": [self.node_id],
                "actor_id": [self.actor_id],
                "seconds": [0.0],
                "error": [str(exc)],
                "skipped": [None],
            }
        results = iter(scored)
        columns: dict[str, list[Any]] = {"line": [], "scored": [], "skipped": []}
        for row, why in entries:  # in input order, a skipped row where it was
            if row is None:
                columns["line"].append("")
                columns["scored"].append("")
            else:
                extra = next(results)
                columns["line"].append(json_line({**row, **extra}).rstrip("\n"))
                columns["scored"].append(json.dumps(extra, default=str))
            columns["skipped"].append(why)
        per_row = summary.seconds / max(1, len(rows))
        return {
            **columns,
            "error": [None] * len(entries),
            "node_id": [self.node_id] * len(entries),
            "actor_id": [self.actor_id] * len(entries),
            "seconds": [per_row if row is not None else 0.0 for row, _ in entries],
        }

    def _valid(self, batch: Any) -> list[tuple[dict[str, Any] | None, str | None]]:
        """The batch's rows in order: each a JSON object with the completion field, else an error, or with
        ``skip_invalid`` (None, where it starts and why), as in-process ``--skip-invalid`` reports it."""
        entries: list[tuple[dict[str, Any] | None, str | None]] = []
        texts = batch.column("text").to_pylist() if self.json_lines else [None] * batch.num_rows
        for text, loaded in zip(texts, [None] * len(texts) if self.json_lines else batch.to_pylist(), strict=True):
            row, problem = row_of(text, loaded, self.completion_key)
            if problem is not None and not self.skip_invalid:
                raise ConfigError(f"{problem} (use --skip-invalid to skip such lines)")
            entries.append((row, problem))
        return entries


def row_of(
    text: str | None, loaded: dict[str, Any] | None, completion_key: str
) -> tuple[dict[str, Any] | None, str | None]:
    """A JSONL line's row (``text``), or a parquet/dataset row (``loaded``), with the completion field; else
    (None, where it is and what is wrong). Ray Data reads lines without their numbers: a line is named by its
    start."""
    row, error = parse_object(text) if text is not None else (loaded, None)
    if row is not None:
        error = missing_completion(row, completion_key)
    if error is None and row is not None:
        return row, None
    where = (
        f"input line {(text or '')[:60]!r}" if text is not None else f"input row {json.dumps(loaded, default=str)[:60]}"
    )
    return None, f"{where}: {error}"


def block_count(rows: int, batch_size: int, actors: int) -> int:
    """How many blocks to cut ``rows`` into. A block goes to one actor whole, so a small input read as one block
    would run on one actor: at least four blocks per actor where the rows allow, none smaller than a batch, and
    none larger than DATASET_BLOCK_ROWS."""
    most = max(1, math.ceil(rows / max(1, batch_size)))
    return min(most, max(4 * actors, math.ceil(rows / DATASET_BLOCK_ROWS)))


def open_dataset(
    ray: Any, path: Path, split: str | None, batch_size: int = 64, actors: int = 1
) -> tuple[Any, bool, int | None]:
    """The input as a Ray Dataset, whether its rows are JSON text lines, and its row count where cheap."""
    kind = input_format(path)  # the formats, and their errors, of in-process scoring
    if kind == "dataset":
        loaded = open_saved_dataset(path, split)
        # The memory-mapped Arrow table goes to the object store in blocks (from_huggingface would ask the Hub).
        table = loaded.data.table
        size = max(1, math.ceil(len(table) / block_count(len(table), batch_size, actors)))
        blocks = [table.slice(start, size) for start in range(0, max(1, len(table)), size)]
        return ray.data.from_arrow(blocks), False, len(loaded)
    if kind == "parquet":
        rows = open_parquet(path).metadata.num_rows
        parts = block_count(rows, batch_size, actors)
        return ray.data.read_parquet(str(path.resolve()), override_num_blocks=parts, **READ_ARGS), False, rows
    lines = count_samples(path)
    parts_or_none = None if lines is None else block_count(lines, batch_size, actors)
    return ray.data.read_text(str(path.resolve()), override_num_blocks=parts_or_none, **READ_ARGS), True, lines


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


def spec_of(
    reward_arg: str, params: Mapping[str, Any] | None = None, reference_key: str | None = None
) -> tuple[dict[str, Any], str]:
    """The spec of a spec file, or of a registered reward's name with ``params`` (``-p``), and the reward's name:
    checked on the driver by building it once, as every actor will (with ``reference_key``)."""
    from rewardkit.scoring.loading import resolve_reward, spec_data

    with resolve_reward(reward_arg, dict(params or {}), reference_key) as built:  # -p with a spec: that error
        _refuse_groups(built)
        return spec_data(reward_arg, params), built.name


def _refuse_groups(reward: Any) -> None:
    from rewardkit.rewards.groups import group_columns

    if group_columns(reward) is not None:
        raise ConfigError(
            f"reward {reward.name!r} compares the completions of one prompt with each other (group_length, "
            f"group_judge), and Ray Data's blocks cut groups apart; score it without --ray (a chunk keeps its "
            f"groups whole) or with rk.build_reward(spec, executor='ray')"
        )


def score_stream(
    reward_arg: str,
    input_path: str,
    output_path: str | None,
    *,
    address: str | None = None,
    actors: int | None = None,
    num_cpus: int | None = None,
    batch_size: int = 64,
    completion_key: str = "completion",
    prompt_key: str = "prompt",
    split: str | None = None,
    params: Mapping[str, Any] | None = None,
    reference_key: str | None = None,
    limit: int | None = None,
    skip_invalid: bool = False,
    on_start: Callable[[int | None], None] | None = None,
    on_rows: Callable[[int], None] | None = None,
    on_skip: Callable[[str], None] | None = None,
) -> tuple[str, ScoreSummary, dict[str, Any]]:
    """Score ``input_path`` on Ray Data; returns the reward's name, the summary and the executor report
    (rows, busy seconds and rows per second per node and per actor). ``params``, ``reference_key``, ``limit``
    and ``skip_invalid`` mean what ``-p``, ``--reference-key``, ``--limit`` and ``--skip-invalid`` mean
    in-process: ``limit`` counts the valid rows scored, and a skipped row is reported through ``on_skip``."""
    try:
        import ray
    except ImportError:
        raise ConfigError(RAY_MISSING) from None

    spec, name = spec_of(reward_arg, params, reference_key)
    if output_path:
        output_format(output_path)  # an unknown suffix fails before a cluster starts
    started_here = start_ray(ray, address, num_cpus)
    writer = open_writer(output_path) if output_path else None
    try:
        # Results in input order; set before the dataset is made, since a dataset copies the context.
        ray.data.DataContext.get_current().execution_options.preserve_order = True
        ray.data.DataContext.get_current().enable_progress_bars = False
        ray.data.DataContext.get_current().wait_for_min_actors_s = FIXED_POOL_START_S if actors else -1
        _spread_by_load(ray.data.DataContext.get_current().execution_options)
        # ``actors`` given: a fixed pool of that many; else one that grows from 1 to the cluster's CPUs.
        pool = actors or max(1, int(ray.cluster_resources().get("CPU", 1)))
        dataset, json_lines, total = open_dataset(ray, Path(input_path), split, batch_size, pool)
        if limit is not None:
            total = limit if total is None else min(total, limit)
            if not skip_invalid:  # every row is valid (or the run fails): the first ``limit`` rows are the ones
                dataset = dataset.limit(limit)
        if on_start is not None:
            on_start(total)
        scored = dataset.map_batches(
            ScoreBatch,
            batch_size=batch_size,
            batch_format="pyarrow",
            num_cpus=1,
            compute=ray.data.ActorPoolStrategy(min_size=actors or 1, max_size=pool),
            fn_constructor_kwargs={
                "spec": spec,
                "completion_key": completion_key,
                "prompt_key": prompt_key,
                "json_lines": json_lines,
                "reference_key": reference_key,
                "skip_invalid": skip_invalid,
            },
        )
        running, where, skipped, left = SummaryBuilder(), Throughput(), 0, limit
        start = time.perf_counter()
        for batch in _unwrapped(ray, scored.iter_batches(batch_size=None, batch_format="pyarrow")):
            columns = batch.to_pydict()
            if columns["error"] and columns["error"][0]:
                raise ConfigError(columns["error"][0])
            keep = []
            for i, why in enumerate(columns["skipped"]):  # as in-process: up to the ``limit``-th valid row
                if left == 0:
                    break
                if why is None:
                    keep.append(i)
                    left = None if left is None else left - 1
                else:
                    skipped += 1
                    if on_skip is not None:
                        on_skip(why)
            if writer is not None:  # the rows as in-process scoring writes them, by the same writers
                writer.write([json.loads(columns["line"][i]) for i in keep])
            for i in keep:
                running.add(json.loads(columns["scored"][i]))
            where.add(*([columns[k][i] for i in keep] for k in ("node_id", "actor_id", "seconds")))
            if on_rows is not None:
                on_rows(len(keep))
            if left == 0:
                break  # ``limit`` valid rows written: the rest of the input is not scored
        seconds = time.perf_counter() - start
        return name, running.result(seconds, skipped=skipped), where.report(seconds)
    finally:
        if writer is not None:
            writer.close()
        if started_here:
            ray.shutdown()


def _spread_by_load(options: Any) -> None:
    """Send each batch to the least busy actor, not to one on the node that holds the batch: rows are small
    and scoring is CPU-bound, and with locality every batch read on one node went to that node's actor while it
    had room (all of a small input ran there while the other actors idled). With locality off, a batch goes to
    the actor with the fewest batches in flight (among idle ones, the one freed last), so an input that scores
    faster than the rest of the pool becomes ready can still all run on the first actor ready."""
    with warnings.catch_warnings():  # deprecated in Ray 2.5x, still honoured
        warnings.simplefilter("ignore")
        options.actor_locality_enabled = False


def _unwrapped(ray: Any, batches: Any) -> Any:
    # A RewardkitError raised in an actor (a missing completion field) reaches the caller as itself.
    try:
        yield from batches
    except ray.exceptions.RayError as exc:
        cause: BaseException | None = exc
        for _ in range(8):  # Ray Data wraps the UDF's error (RayTaskError, UserCodeException)
            if cause is None or isinstance(cause, RewardkitError):
                break
            cause = getattr(cause, "cause", None) or cause.__cause__
        if isinstance(cause, RewardkitError):
            raise cause from None
        if isinstance(exc, ray.exceptions.GetTimeoutError):
            raise ConfigError(
                f"the actor pool did not start within {FIXED_POOL_START_S} s: the cluster lacks the CPUs "
                f"for that many actors (one CPU each; it has {ray.cluster_resources().get('CPU', 0):g})"
            ) from None
        raise


class Throughput:
    """Rows and scoring seconds per node and per actor, as reported with each scored row."""

    def __init__(self) -> None:
        self.nodes: dict[str, dict[str, float]] = {}
        self.actors: dict[str, dict[str, Any]] = {}

    def add(self, nodes: list[str], actors: list[str], seconds: list[float]) -> None:
        for node, actor, spent in zip(nodes, actors, seconds, strict=True):
            self.nodes.setdefault(node, {"rows": 0})["rows"] += 1
            entry = self.actors.setdefault(actor, {"rows": 0, "seconds": 0.0, "node_id": node})
            entry["rows"] += 1
            entry["seconds"] += spent

    def report(self, seconds: float) -> dict[str, Any]:
        for entry in self.actors.values():
            entry["rows_per_second"] = entry["rows"] / entry["seconds"] if entry["seconds"] > 0 else 0.0
        for node in self.nodes.values():
            node["rows_per_second"] = node["rows"] / seconds if seconds > 0 else 0.0
        rows = sum(n["rows"] for n in self.nodes.values())
        return {
            "rows": rows,
            "seconds": seconds,
            "rows_per_second": rows / seconds if seconds > 0 else 0.0,
            "nodes": self.nodes,
            "actors": self.actors,
        }
