"""``rewardkit train`` and ``rewardkit group-size-sweep``."""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any

import click

from rewardkit._errors import RewardkitError
from rewardkit._install import extra_hint


def make_trainer(config: Any, resume_from: str | None = None) -> Any:
    """A CoDistillTrainer when the config has a ``codistill`` section, else a MiniGRPOTrainer."""
    if config.codistill is not None:
        from rewardkit.train.codistill import CoDistillTrainer

        return CoDistillTrainer(config, resume_from=resume_from)
    from rewardkit.train.trainer import MiniGRPOTrainer

    return MiniGRPOTrainer(config, resume_from=resume_from)


def _override(config: Any, output_dir: str | None, steps: int | None, seed: int | None) -> Any:
    import dataclasses

    if output_dir:
        config = config.replace(output_dir=output_dir)
    if steps:
        config = config.replace(grpo=dataclasses.replace(config.grpo, steps=steps))
    if seed is not None:
        config = config.replace(seed=seed)
    return config


def summarise_history(history: list[dict[str, Any]], tail: int = 10) -> dict[str, Any]:
    """First/last-window means of the training reward and the first/last greedy evaluation."""
    train = [h for h in history if "reward/mean" in h]
    evals = [h for h in history if "eval/reward" in h]
    k = max(1, min(tail, len(train) // 2 or 1))

    def mean(rows: list[dict[str, Any]], key: str) -> float:
        total: float = sum(r[key] for r in rows)
        return total / len(rows)

    out: dict[str, Any] = {"steps": len(train)}
    if train:
        out.update(
            {
                "reward_first": mean(train[:k], "reward/mean"),
                "reward_last": mean(train[-k:], "reward/mean"),
                "zero_variance_first": mean(train[:k], "zero_variance_frac"),
                "zero_variance_last": mean(train[-k:], "zero_variance_frac"),
                "seconds_per_step": mean(train, "time/step_s"),
                "window": k,
            }
        )
    if evals:
        out.update({"eval_first": evals[0], "eval_last": evals[-1]})
    return out


TRAIN_EXTRA = ("torch", "transformers", "peft")


def require_train_extra() -> None:
    """Import the train extra's heavy parts now, so a core install gets the install line, not a traceback."""
    for module in TRAIN_EXTRA:
        try:
            importlib.import_module(module)
        except ImportError as exc:
            raise click.ClickException(
                f"this command needs the train extra, which is not installed here ({exc}): {extra_hint('train')}"
            ) from None


@click.command()
@click.option(
    "--config",
    "config_path",
    required=True,
    type=click.Path(exists=True, dir_okay=False),
    help="A training YAML (see docs/training.md).",
)
@click.option("--output-dir", help="Overrides output_dir.")
@click.option("--steps", type=int, help="Overrides grpo.steps (the total, counting steps before a resume).")
@click.option("--seed", type=int, help="Overrides seed.")
@click.option("--resume", help="A checkpoint directory, or 'latest' (the newest under output_dir).")
@click.option("--overwrite", is_flag=True, help="Replace what an earlier run wrote to output_dir.")
@click.option("--no-progress", is_flag=True, help="Hide the progress bar.")
def train(
    config_path: str,
    output_dir: str | None,
    steps: int | None,
    seed: int | None,
    resume: str | None,
    overwrite: bool,
    no_progress: bool,
) -> None:
    """Train with GRPO (or CoDistill-GRPO) as CONFIG says; metrics, checkpoints and plots go to output_dir.

    A non-empty output_dir is refused unless --resume (continue it) or --overwrite (replace it) is given.
    """
    from rewardkit.train.config import load_config
    from rewardkit.train.run_dir import prepare_output_dir

    try:
        config = _override(load_config(config_path), output_dir, steps, seed)
        prepare_output_dir(config.output_dir, resume=resume is not None, overwrite=overwrite)
    except RewardkitError as exc:
        raise click.ClickException(str(exc)) from exc
    require_train_extra()
    from rich.console import Console

    from rewardkit.train.progress import TrainProgress

    console = Console(stderr=True)
    try:
        with (
            console.status(
                "loading the model" + (" and running the warm-up" if config.warmup.steps else ""), spinner="dots"
            )
            if not no_progress
            else _nothing()
        ):
            trainer = make_trainer(config, resume)
        with TrainProgress(console, config.grpo.steps, trainer.step, disabled=no_progress) as progress:
            history = trainer.train(on_step=progress.update)
    except RewardkitError as exc:
        raise click.ClickException(str(exc)) from exc
    summary = summarise_history(history)
    (Path(config.output_dir) / "summary.json").write_text(json.dumps(summary, indent=2))
    click.echo(json.dumps(summary, indent=2))


def _nothing() -> Any:
    import contextlib

    return contextlib.nullcontext()


@click.command("group-size-sweep")
@click.option("--config", "config_path", required=True, type=click.Path(exists=True, dir_okay=False))
@click.option("--group-sizes", default="2,4,8", show_default=True, help="Comma-separated group sizes.")
@click.option("--output-dir", help="Where the runs and the comparison go (default: output_dir/sweep).")
@click.option("--steps", type=int, help="Overrides grpo.steps for every run.")
@click.option(
    "--same-budget", is_flag=True, help="Keep completions per step fixed: prompts_per_step = budget / group_size."
)
def group_size_sweep(
    config_path: str, group_sizes: str, output_dir: str | None, steps: int | None, same_budget: bool
) -> None:
    """Train the same setup once per group size; write comparison.json, comparison.md and comparison.png."""
    from rewardkit.train.config import load_config

    try:
        sizes = [int(s) for s in group_sizes.split(",") if s.strip()]
    except ValueError:
        raise click.BadParameter(f"expected integers like 2,4,8, got {group_sizes!r}") from None
    require_train_extra()
    try:
        base = _override(load_config(config_path), None, steps, None)
        root = Path(output_dir or Path(base.output_dir) / "sweep")
        run_sweep(base, sizes, root, same_budget)
    except RewardkitError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo((root / "comparison.md").read_text())


def run_sweep(base: Any, sizes: list[int], root: Path, same_budget: bool = False) -> dict[int, dict[str, Any]]:
    import dataclasses

    from rewardkit._errors import ConfigError
    from rewardkit.train.config import check_semantics
    from rewardkit.train.plots import plot_sweep

    budget = base.grpo.prompts_per_step * base.grpo.group_size
    histories: dict[int, list[dict[str, Any]]] = {}
    summaries: dict[int, dict[str, Any]] = {}
    for size in sizes:
        prompts = base.grpo.prompts_per_step
        if same_budget:
            if budget % size:
                raise ConfigError(f"--same-budget: group size {size} does not divide {budget} completions per step")
            prompts = budget // size
        grpo = dataclasses.replace(base.grpo, group_size=size, prompts_per_step=prompts, grad_accum_steps=1)
        config = base.replace(grpo=grpo, output_dir=str(root / f"group_size_{size}"))
        check_semantics(config)
        history = make_trainer(config).train()
        histories[size] = [h for h in history if "reward/mean" in h]
        summaries[size] = {"prompts_per_step": prompts, **summarise_history(history)}
    root.mkdir(parents=True, exist_ok=True)
    (root / "comparison.json").write_text(json.dumps(summaries, indent=2, default=str))
    lines = [
        "| group size | prompts/step | reward first | reward last | zero-var first | zero-var last | s/step |",
        "|---|---|---|---|---|---|---|",
    ]
    for size, s in summaries.items():
        lines.append(
            f"| {size} | {s['prompts_per_step']} | {s['reward_first']:.3f} | {s['reward_last']:.3f} | "
            f"{s['zero_variance_first']:.2f} | {s['zero_variance_last']:.2f} | {s['seconds_per_step']:.2f} |"
        )
    (root / "comparison.md").write_text("\n".join(lines) + "\n")
    plot_sweep(histories, root / "comparison.png")
    return summaries
