"""``rewardkit audit``: check a reward against known reward hacks before training on it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from rewardkit._errors import RewardkitError


class AuditError(click.ClickException):
    """A bad spec, data file or option: exit code 2, apart from 1 (a hack is credited)."""

    exit_code = 2


@click.command()
@click.option(
    "--reward", "-r", "reward_arg", required=True, help="A reward spec (YAML/JSON file) or a registered reward name."
)
@click.option(
    "--data",
    "-d",
    "data_path",
    default=None,
    help="Rows to build the hacks from (.jsonl, .parquet, saved dataset); default: built-in rows.",
)
@click.option(
    "--kind",
    "kinds",
    multiple=True,
    type=click.Choice(["math", "mcq", "code", "format", "length", "judge", "tool_call", "ifeval"]),
    help="Which hacks to try (repeatable); default: from the reward's verifier and format terms.",
)
@click.option(
    "--threshold",
    default=0.0,
    show_default=True,
    type=float,
    help="A hack is credited when its mean beats the honest wrong answer's mean by more than this.",
)
@click.option(
    "--max-rows",
    default=20,
    show_default=True,
    type=click.IntRange(min=1),
    help="At most this many --data rows per kind.",
)
@click.option("--html", "html_path", default=None, help="Also write an HTML report here.")
@click.option("--json", "json_path", default=None, help="Also write the results as JSON here.")
def audit(
    reward_arg: str,
    data_path: str | None,
    kinds: tuple[str, ...],
    threshold: float,
    max_rows: int,
    html_path: str | None,
    json_path: str | None,
) -> None:
    """Score adversarial variants of rows (several answers, hedges, empty answers, exit tricks, empty tags)
    with REWARD; print which it credits. Exit code 1 when any hack is credited, 2 on a bad input."""
    from rich.console import Console

    from rewardkit.audit.report import print_table, write_html
    from rewardkit.audit.runner import run_audit
    from rewardkit.scoring.loading import resolve_reward
    from rewardkit.scoring.readers import read_samples

    try:
        data = read_samples(data_path) if data_path else None
        reward = resolve_reward(reward_arg)
        with reward:
            result = run_audit(reward, kinds=list(kinds) or None, data=data, threshold=threshold, max_rows=max_rows)
    except RewardkitError as exc:
        raise AuditError(str(exc)) from exc
    console = Console(width=None if sys.stdout.isatty() else 150)
    print_table(console, result)
    if html_path:
        write_html(html_path, result)
    if json_path:
        Path(json_path).parent.mkdir(parents=True, exist_ok=True)
        Path(json_path).write_text(json.dumps(result.to_dict(), indent=2, default=str))
    credited = result.credited()
    if credited:
        console.print(
            f"[bold red]{len(credited)} hack(s) credited[/bold red]: "
            + ", ".join(f"{r.kind}/{r.name}" for r in credited),
            soft_wrap=True,
        )
        raise SystemExit(1)
    console.print("[green]no hack credited[/green]")
