"""``rewardkit score``: score a file of completions with a composed reward, offline."""

from __future__ import annotations

import json
from pathlib import Path

import click

from rewardkit._errors import RewardkitError


def is_spec_path(reward: str) -> bool:
    return Path(reward).suffix.lower() in (".yaml", ".yml", ".json") or Path(reward).is_file()


def load_reward(reward: str):  # -> rewardkit.rewards.base.Reward
    """A spec file path, or the name of a registered reward."""
    import rewardkit as rk
    from rewardkit.rewards.base import as_reward

    if is_spec_path(reward):
        return rk.build_reward(reward)
    return as_reward(rk.get_reward(reward), reward)


@click.command()
@click.option("--reward", "-r", "reward_arg", required=True,
              help="A reward spec (YAML/JSON file) or a registered reward name.")
@click.option("--input", "-i", "input_path", required=True,
              help="Samples: .jsonl, .parquet, or a directory saved with datasets' save_to_disk.")
@click.option("--output", "-o", "output_path", default=None,
              help="Where to write scored rows (.jsonl, or .parquet).")
@click.option("--workers", "-w", default=1, show_default=True, type=click.IntRange(min=1),
              help="Batches scored at once (threads sharing the reward's verifier pools).")
@click.option("--batch-size", default=64, show_default=True, type=click.IntRange(min=1),
              help="Samples per reward call.")
@click.option("--completion-key", default="completion", show_default=True, help="Field holding the completion.")
@click.option("--prompt-key", default="prompt", show_default=True, help="Field holding the prompt.")
@click.option("--split", default=None, help="Split to read from a saved DatasetDict.")
@click.option("--summary-json", default=None, help="Also write the summary as JSON to this path.")
@click.option("--no-progress", is_flag=True, help="Hide the progress bar.")
@click.option("--ray", "ray_local", is_flag=True,
              help="Score on a local Ray cluster: one reward per actor; --workers N>1 sets the actors and CPUs.")
@click.option("--ray-address", default=None, help="Score on the Ray cluster at this address (e.g. auto).")
def score(
    reward_arg: str, input_path: str, output_path: str | None, workers: int, batch_size: int,
    completion_key: str, prompt_key: str, split: str | None, summary_json: str | None, no_progress: bool,
    ray_local: bool = False, ray_address: str | None = None,
) -> None:
    """Score every sample of INPUT with REWARD; print a summary table.

    Each output row is the input row plus `reward`, `components` (each term's value), `status` and
    `extracted` (the first verifier's verdict) and `verdicts` (every verifier term's).
    """
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from rewardkit.rewards.batch_scoring import score_rows
    from rewardkit.rewards.score_io import read_samples, write_rows

    if ray_local or ray_address:  # streamed through Ray Data: rewardkit/rewards/ray_data_scoring.py
        from rewardkit.rewards.ray_data_scoring import score_command

        return score_command(
            reward_arg, input_path, output_path, address=ray_address, workers=workers, summary_json=summary_json,
            no_progress=no_progress, batch_size=batch_size, completion_key=completion_key, prompt_key=prompt_key,
            split=split,
        )
    console = Console(stderr=True)
    try:
        rows = read_samples(input_path, split)
        reward = load_reward(reward_arg)
    except RewardkitError as exc:
        raise click.ClickException(str(exc)) from exc
    progress = Progress(
        TextColumn("[bold]scoring"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
        console=console, disable=no_progress, transient=False,
    )
    try:
        with progress, reward:
            task = progress.add_task("score", total=len(rows))
            scored, summary = score_rows(
                reward, rows, batch_size=batch_size, workers=workers, completion_key=completion_key,
                prompt_key=prompt_key, on_batch=lambda n: progress.advance(task, n),
            )
    except RewardkitError as exc:
        raise click.ClickException(str(exc)) from exc
    if output_path:
        write_rows(output_path, ({**row, **extra} for row, extra in zip(rows, scored)))
    if summary_json:
        Path(summary_json).write_text(json.dumps({"reward": reward.name, **summary.to_dict()}, indent=2))
    print_summary(Console(), reward.name, summary, output_path)


def print_summary(console, name: str, summary, output_path: str | None) -> None:  # rich Console, ScoreSummary
    from rich.table import Table

    def fmt(value: float | None) -> str:
        return "n/a" if value is None else f"{value:.4f}"

    table = Table(title=f"reward {name}: {summary.samples} samples")
    table.add_column("component")
    table.add_column("mean", justify="right")
    table.add_column("rows scored", justify="right")
    table.add_row("[bold]total", fmt(summary.reward_mean), str(summary.samples - summary.not_applicable))
    for label, mean in summary.component_means.items():
        table.add_row(label, fmt(mean), str(summary.component_counts[label]))
    console.print(table)
    if summary.statuses:
        statuses = Table(title="verdict statuses")
        statuses.add_column("status")
        statuses.add_column("count", justify="right")
        for status, count in summary.statuses.most_common():
            statuses.add_row(str(status), str(count))
        console.print(statuses)
    console.print(
        f"hedges caught: {summary.hedged}   timeouts caught: {summary.timeouts}   "
        f"{summary.samples_per_second:.1f} samples/s ({summary.seconds:.2f} s)"
        + (f"   written to {output_path}" if output_path else "")
    )
