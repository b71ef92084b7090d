"""``rewardkit score --ray`` / ``--ray-address``: the progress bar, summary table and per-node lines around
:func:`rewardkit.scoring.ray_data_scoring.score_stream`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rewardkit._errors import RewardkitError
from rewardkit.cli.summary_table import print_summary
from rewardkit.scoring.ray_data_scoring import score_stream


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
    warnings_to = Console(stderr=True)
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
                on_skip=lambda why: warnings_to.print(f"[yellow]skipped {why}", soft_wrap=True),
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
