"""``rewardkit score --ray``: stream a dataset through Ray Data and score it on an actor pool.

The input (JSONL, parquet, or a ``datasets`` directory) is read by Ray Data in blocks; ``map_batches`` runs
:class:`ScoreBatch` (a callable class: each actor builds the reward once and keeps its verifier pools warm);
the driver writes each scored batch as it arrives, in input order, and keeps only running totals, so its
memory does not grow with the input. Output rows are exactly those of in-process ``rewardkit score``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from rewardkit._errors import ConfigError, RewardkitError
from rewardkit._jsonl import parse_object
from rewardkit.scoring.batch_scoring import ScoreSummary, SummaryBuilder
from rewardkit.scoring.ray_scoring import RAY_MISSING, resolve_spec, start_ray
from rewardkit.scoring.readers import count_samples, input_format, open_parquet, open_saved_dataset
from rewardkit.scoring.writers import open_writer, output_format

# Reading is light next to scoring: read tasks reserve no CPU, so an actor pool that holds every CPU of the
# cluster cannot starve them (which would stall the whole pipeline).
READ_ARGS: dict[str, Any] = {"num_cpus": 0}
DATASET_BLOCK_ROWS = 10_000


class ScoreBatch:
    """The map_batches callable: one reward per actor; a batch of input rows in, a batch of output lines out."""

    def __init__(self, spec: Mapping[str, Any], completion_key: str, prompt_key: str, json_lines: bool) -> None:
        import ray

        from rewardkit.scoring.build import build_reward

        self.reward = build_reward(spec)
        self.completion_key, self.prompt_key = completion_key, prompt_key
        self.json_lines = json_lines
        context = ray.get_runtime_context()
        self.node_id, self.actor_id = context.get_node_id(), context.get_actor_id()

    def __call__(self, batch: Any) -> dict[str, list[Any]]:  # a pyarrow Table in, columns out
        from rewardkit.scoring.batch_scoring import score_rows

        try:
            rows = [_parse(line) for line in batch.column("text").to_pylist()] if self.json_lines else batch.to_pylist()
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
            }
        return {
            "error": [None] * len(rows),
            "line": [
                json.dumps({**row, **extra}, ensure_ascii=False, default=str)
                for row, extra in zip(rows, scored, strict=False)
            ],
            "scored": [json.dumps(extra, default=str) for extra in scored],
            "node_id": [self.node_id] * len(rows),
            "actor_id": [self.actor_id] * len(rows),
            "seconds": [summary.seconds / max(1, len(rows))] * len(rows),
        }


def _parse(line: str) -> dict[str, Any]:
    row, error = parse_object(line)
    if row is None:
        raise ConfigError(f"input line {line[:80]!r}: {error}")
    return row


def open_dataset(ray: Any, path: Path, split: str | None) -> tuple[Any, bool, int | None]:
    """The input as a Ray Dataset, whether its rows are JSON text lines, and its row count where cheap."""
    kind = input_format(path)  # the formats, and their errors, of in-process scoring
    if kind == "dataset":
        loaded = open_saved_dataset(path, split)
        # The memory-mapped Arrow table goes to the object store in blocks (from_huggingface would ask the Hub).
        table = loaded.data.table
        blocks = [table.slice(start, DATASET_BLOCK_ROWS) for start in range(0, max(1, len(table)), DATASET_BLOCK_ROWS)]
        return ray.data.from_arrow(blocks), False, len(loaded)
    if kind == "parquet":
        rows = open_parquet(path).metadata.num_rows
        return ray.data.read_parquet(str(path.resolve()), **READ_ARGS), False, rows
    return ray.data.read_text(str(path.resolve()), **READ_ARGS), True, count_samples(path)


def spec_of(reward_arg: str) -> dict[str, Any]:
    """The spec of a spec file or a registered reward's name, checked by building it once on the driver."""
    from rewardkit.scoring.loading import is_spec_path

    return resolve_spec(reward_arg if is_spec_path(reward_arg) else {"reward": reward_arg})


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
    on_start: Callable[[int | None], None] | None = None,
    on_rows: Callable[[int], None] | None = None,
) -> tuple[str, ScoreSummary, dict[str, Any]]:
    """Score ``input_path`` on Ray Data; returns the reward's name, the summary and the executor report
    (rows, busy seconds and rows per second per node and per actor)."""
    try:
        import ray
    except ImportError:
        raise ConfigError(RAY_MISSING) from None
    from rewardkit.scoring.build import build_reward

    spec = spec_of(reward_arg)
    with build_reward(spec) as local:
        name = local.name
    if output_path:
        output_format(output_path)  # an unknown suffix fails before a cluster starts
    started_here = start_ray(ray, address, num_cpus)
    writer = open_writer(output_path) if output_path else None
    try:
        # Results in input order; set before the dataset is made, since a dataset copies the context.
        ray.data.DataContext.get_current().execution_options.preserve_order = True
        ray.data.DataContext.get_current().enable_progress_bars = False
        dataset, json_lines, total = open_dataset(ray, Path(input_path), split)
        if on_start is not None:
            on_start(total)
        # ``actors`` given: a fixed pool of that many; else one that grows from 1 to the cluster's CPUs.
        pool = actors or max(1, int(ray.cluster_resources().get("CPU", 1)))
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
            },
        )
        running, where = SummaryBuilder(), Throughput()
        start = time.perf_counter()
        for batch in _unwrapped(ray, scored.iter_batches(batch_size=None, batch_format="pyarrow")):
            columns = batch.to_pydict()
            if columns["error"] and columns["error"][0]:
                raise ConfigError(columns["error"][0])
            if writer is not None:  # the rows as in-process scoring writes them, by the same writers
                writer.write([json.loads(line) for line in columns["line"]])
            for extra in columns["scored"]:
                running.add(json.loads(extra))
            where.add(columns["node_id"], columns["actor_id"], columns["seconds"])
            if on_rows is not None:
                on_rows(len(columns["line"]))
        seconds = time.perf_counter() - start
        return name, running.result(seconds), where.report(seconds)
    finally:
        if writer is not None:
            writer.close()
        if started_here:
            ray.shutdown()


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
        raise


class Throughput:
    """Rows and scoring seconds per node and per actor, as reported with each scored row."""

    def __init__(self) -> None:
        self.nodes: dict[str, dict[str, float]] = {}
        self.actors: dict[str, dict[str, Any]] = {}

    def add(self, nodes: list[str], actors: list[str], seconds: list[float]) -> None:
        for node, actor, spent in zip(nodes, actors, seconds, strict=False):
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


def score_command(
    reward_arg: str,
    input_path: str,
    output_path: str | None,
    *,
    address: str | None,
    workers: int,
    summary_json: str | None,
    no_progress: bool,
    **options: Any,
) -> None:
    """The ``rewardkit score --ray`` / ``--ray-address`` run: progress bar, summary table, per-node lines."""
    import click
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from rewardkit.scoring.summary_table import print_summary

    progress = Progress(
        TextColumn("[bold]scoring"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        disable=no_progress,
        transient=False,
    )
    many = workers if workers > 1 else None
    try:
        with progress:
            task = progress.add_task("score", total=None)
            name, summary, report = score_stream(
                reward_arg,
                input_path,
                output_path,
                address=address,
                actors=many,
                num_cpus=many,
                on_start=lambda total: progress.update(task, total=total),
                on_rows=lambda n: progress.advance(task, n),
                **options,
            )
    except RewardkitError as exc:
        raise click.ClickException(str(exc)) from exc
    if summary_json:
        Path(summary_json).write_text(json.dumps({"reward": name, **summary.to_dict(), "executor": report}, indent=2))
    console = Console()
    print_summary(console, name, summary, output_path)
    for node, values in report["nodes"].items():
        actors = sum(a["node_id"] == node for a in report["actors"].values())
        console.print(
            f"node {node[:12]}: {values['rows']} rows, {actors} actor(s), {values['rows_per_second']:.1f} rows/s"
        )
