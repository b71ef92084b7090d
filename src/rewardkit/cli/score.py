"""``rewardkit score``: score a file of completions with a composed reward, offline, streaming."""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import click

from rewardkit._errors import ConfigError, RewardkitError
from rewardkit.cli.summary_table import print_summary
from rewardkit.rewards.base import Reward
from rewardkit.scoring.loading import resolve_reward
from rewardkit.scoring.readers import missing_completion


@click.command()
@click.option(
    "--reward", "-r", "reward_arg", required=True, help="A reward spec (YAML/JSON file) or a registered reward name."
)
@click.option(
    "--input",
    "-i",
    "input_path",
    required=True,
    help="Samples: .jsonl, .parquet, or a directory saved with datasets' save_to_disk.",
)
@click.option(
    "--output",
    "-o",
    "output_path",
    default=None,
    help="Where to write scored rows (.jsonl, .csv or .parquet), chunk by chunk.",
)
@click.option(
    "--workers",
    "-w",
    default=1,
    show_default=True,
    type=click.IntRange(min=1),
    help="Batches scored at once (threads sharing the reward's verifier pools).",
)
@click.option(
    "--batch-size",
    default=64,
    show_default=True,
    type=click.IntRange(min=1),
    help="Samples per reward call (and per chunk written).",
)
@click.option("--completion-key", default="completion", show_default=True, help="Field holding the completion.")
@click.option("--prompt-key", default="prompt", show_default=True, help="Field holding the prompt.")
@click.option(
    "--reference-key",
    default=None,
    help="Field holding the reference answer, for every verifier-backed term of the reward.",
)
@click.option(
    "--param",
    "-p",
    "params",
    multiple=True,
    metavar="KEY=VALUE",
    help="A parameter of the registered reward named by --reward (value read as JSON if it parses).",
)
@click.option("--split", default=None, help="Split to read from a saved DatasetDict.")
@click.option("--limit", default=None, type=click.IntRange(min=0), help="Score only the first N samples.")
@click.option(
    "--resume",
    is_flag=True,
    help="Continue an interrupted --output .jsonl: keep its rows, score the rest of the input.",
)
@click.option(
    "--skip-invalid",
    is_flag=True,
    help="Report and skip input lines that are not JSON objects or lack the completion field.",
)
@click.option("--summary-json", default=None, help="Also write the summary as JSON to this path.")
@click.option("--no-progress", is_flag=True, help="Hide the progress bar.")
@click.option(
    "--ray",
    "ray_local",
    is_flag=True,
    help="Score on a local Ray cluster: one reward per actor; --workers N>1 sets the actors and CPUs.",
)
@click.option("--ray-address", default=None, help="Score on the Ray cluster at this address (e.g. auto).")
@click.option("--profile", is_flag=True, help="Print where the time went, per stage (extract, compare, sandbox).")
def score(
    reward_arg: str,
    input_path: str,
    output_path: str | None,
    workers: int,
    batch_size: int,
    completion_key: str,
    prompt_key: str,
    reference_key: str | None,
    params: tuple[str, ...],
    split: str | None,
    limit: int | None,
    resume: bool,
    skip_invalid: bool,
    summary_json: str | None,
    no_progress: bool,
    ray_local: bool = False,
    ray_address: str | None = None,
    profile: bool = False,
) -> None:
    """Score every sample of INPUT with REWARD; print a summary table.

    Each output row is the input row plus `reward`, `components` (each term's value), `status` and
    `extracted` (the first verifier's verdict) and `verdicts` (every verifier term's). Rows are written
    as each chunk of --batch-size finishes, so an interrupted run keeps them; --resume continues it.
    """
    from rich.console import Console

    if ray_local or ray_address:  # streamed through Ray Data: rewardkit/scoring/ray_data_scoring.py
        from rewardkit.cli.score_ray import score_command

        _refuse_with_ray(resume, profile)
        return score_command(
            reward_arg,
            input_path,
            output_path,
            address=ray_address,
            workers=workers,
            summary_json=summary_json,
            no_progress=no_progress,
            batch_size=batch_size,
            completion_key=completion_key,
            prompt_key=prompt_key,
            split=split,
            params=dict(split_param(p) for p in params),
            reference_key=reference_key,
            limit=limit,
            skip_invalid=skip_invalid,
        )
    console = Console(stderr=True)
    samples, reward = _open(reward_arg, input_path, output_path, split, params, reference_key, resume)
    skipped: list[str] = []

    def skip(where: str, why: str) -> None:
        skipped.append(where)
        console.print(f"[yellow]skipped {where}: {why}", soft_wrap=True)

    rows = itertools.islice(valid_rows(samples, completion_key, skip if skip_invalid else None), limit)
    total = _total(input_path, split, limit)
    started = time.perf_counter()
    builder, resumed = _score_to_output(
        console,
        reward,
        rows,
        total,
        output_path,
        resume=resume,
        workers=workers,
        batch_size=batch_size,
        completion_key=completion_key,
        prompt_key=prompt_key,
        no_progress=no_progress,
        profile=profile,
    )
    summary = builder.result(time.perf_counter() - started, resumed=resumed, skipped=len(skipped))
    if summary.samples == 0:
        console.print(
            f"[yellow]warning[/yellow]: {input_path} has no samples to score"
            + (f" ({len(skipped)} invalid lines skipped)" if skipped else ""),
            soft_wrap=True,
        )
    if summary_json:
        path = Path(summary_json)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"reward": reward.name, **summary.to_dict()}, indent=2))
    print_summary(Console(), reward.name, summary, output_path)


def _refuse_with_ray(resume: bool, profile: bool) -> None:
    unsupported = {
        "--resume": "the Ray path writes its output anew; resume without --ray",
        "--profile": "it profiles the in-process path; profile without --ray",
    }
    given = [flag for flag, on in (("--resume", resume), ("--profile", profile)) if on]
    if given:
        raise click.ClickException(
            "; ".join(f"{flag} is not supported with --ray: {unsupported[flag]}" for flag in given)
        )


def _open(
    reward_arg: str,
    input_path: str,
    output_path: str | None,
    split: str | None,
    params: tuple[str, ...],
    reference_key: str | None,
    resume: bool,
) -> tuple[Iterator[Any], Reward]:
    """The input's samples and the reward, every flag checked first (a bad one is a click error)."""
    from rewardkit.scoring.readers import iter_samples
    from rewardkit.scoring.writers import output_format

    try:
        if output_path is not None:
            output_format(output_path)
        if resume and output_path is None:
            raise ConfigError("--resume continues the file given with --output; no --output was given")
        samples = iter_samples(input_path, split)
        reward = resolve_reward(reward_arg, dict(split_param(p) for p in params), reference_key)
    except RewardkitError as exc:
        raise click.ClickException(str(exc)) from exc
    return samples, reward


def _total(input_path: str, split: str | None, limit: int | None) -> int | None:
    """The rows the progress bar counts to (None where the input's size is unknown)."""
    from rewardkit.scoring.readers import count_samples

    total = count_samples(input_path, split)
    if limit is not None:
        total = limit if total is None else min(total, limit)
    return total


def _score_to_output(
    console: Any,
    reward: Reward,
    rows: Iterator[Any],
    total: int | None,
    output_path: str | None,
    *,
    resume: bool,
    workers: int,
    batch_size: int,
    completion_key: str,
    prompt_key: str,
    no_progress: bool,
    profile: bool,
) -> tuple[Any, int]:
    """Score ``rows`` chunk by chunk, writing each to ``output_path`` as it finishes: the summary builder and
    the rows kept from the output resumed. The reward is closed at the end; Ctrl-C says where the rows are."""
    from rewardkit import profiling
    from rewardkit.scoring.batch_scoring import SummaryBuilder
    from rewardkit.scoring.writers import open_writer

    builder = SummaryBuilder()
    progress = _progress(console, no_progress)
    writer = None
    resumed = 0
    collected = profiling.start() if profile else None
    try:
        with progress, reward:
            task = progress.add_task("score", total=total)
            resumed = _resume(output_path, rows, builder) if resume else 0
            progress.advance(task, resumed)
            writer = open_writer(output_path, append=resume) if output_path else None
            for chunk, scored in _scored_chunks(reward, rows, workers, batch_size, completion_key, prompt_key):
                if writer is not None:
                    writer.write([{**row, **extra} for row, extra in zip(chunk, scored, strict=True)])
                for extra in scored:
                    builder.add(extra)
                progress.advance(task, len(scored))
    except KeyboardInterrupt:
        where = (
            f"{builder.samples} scored rows are in {output_path}; rerun with --resume to continue"
            if output_path
            else f"{builder.samples} rows were scored (no --output)"
        )
        console.print(f"[red]interrupted[/red]: {where}", soft_wrap=True)
        raise SystemExit(130) from None
    except RewardkitError as exc:
        raise click.ClickException(str(exc)) from exc
    finally:
        if writer is not None:
            writer.close()
        if collected is not None:
            click.echo(profiling.stop(collected).render(), err=True)
    return builder, resumed


def split_param(raw: str) -> tuple[str, Any]:
    """``key=value`` as a pair; the value is read as JSON when it parses (``3``, ``true``, ``[1, 2]``)."""
    key, sep, value = raw.partition("=")
    if not sep or not key.strip():
        raise ConfigError(f"-p/--param: expected KEY=VALUE, got {raw!r}")
    try:
        return key.strip(), json.loads(value)
    except json.JSONDecodeError:
        return key.strip(), value


def valid_rows(samples: Iterator[Any], completion_key: str, skip: Callable[[str, str], None] | None) -> Iterator[Any]:
    """The samples that are JSON objects with the completion field; any other is an error naming its file
    line, or, with ``skip``, reported through it and left out."""
    for sample in samples:
        error = sample.error
        if error is None:
            error = missing_completion(sample.row, completion_key)
        if error is None:
            yield sample
        elif skip is None:
            raise ConfigError(f"{sample.where}: {error} (use --skip-invalid to skip such lines)")
        else:
            skip(sample.where, error)


def _resume(output_path: str | None, rows: Iterator[Any], builder: Any) -> int:
    """Check the existing output row by row against the input's first rows; fold them into the summary."""
    from rewardkit.scoring.writers import existing_rows, same_input

    count = 0
    for number, scored in enumerate(existing_rows(str(output_path)), 1):
        sample = next(rows, None)
        if sample is None:
            raise ConfigError(
                f"--resume: {output_path} has more rows ({number}+) than the input (with this --limit / --skip-invalid)"
            )
        differs = same_input(scored, sample.row)
        if differs is not None:
            raise ConfigError(
                f"--resume: {output_path}:{number} was not scored from {sample.where} (field {differs!r} "
                f"differs); is it the output of this input, with the same --limit / --skip-invalid?"
            )
        builder.add(scored)
        count += 1
    return count


def _scored_chunks(
    reward: Any, samples: Iterator[Any], workers: int, batch_size: int, completion_key: str, prompt_key: str
) -> Iterator[Any]:
    """(rows, their reward fields), chunk by chunk."""
    from rewardkit.rewards.groups import group_columns, row_group_key, whole_group_chunks
    from rewardkit.scoring.batch_scoring import score_chunks

    rows = (s.row for s in samples)
    groups = group_columns(reward)
    chunks: Iterator[list[Any]]
    if groups is None:
        chunks = iter(lambda: list(itertools.islice(rows, batch_size)), [])
    else:  # a chunk ends with the group it reached --batch-size in (rows of a group are adjacent in a GRPO dump)
        names = [k for k in groups if k]
        chunks = whole_group_chunks(
            rows, batch_size, lambda r: row_group_key(r.get(prompt_key), [r.get(k) for k in names])
        )
    yield from score_chunks(reward, chunks, workers=workers, completion_key=completion_key, prompt_key=prompt_key)


def _progress(console: Any, disabled: bool) -> Any:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    return Progress(
        TextColumn("[bold]scoring"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=console,
        disable=disabled,
        transient=False,
    )
