"""The ``rewardkit`` command line."""

from __future__ import annotations

import importlib
import importlib.util
import json
import sys
from typing import Any

import click

LAZY_COMMANDS = {
    "score": "rewardkit.rewards.score_command:score",
    "train": "rewardkit.train.command:train",
    "group-size-sweep": "rewardkit.train.command:group_size_sweep",
    "sandbox-image": "rewardkit.sandbox.image_command:sandbox_image",
    "bench": "rewardkit.bench.command:bench",
    "audit": "rewardkit.audit.command:audit",
}

EPILOG = """\b
Examples:
  rewardkit verify math --reference '\\frac12' 'The answer is \\boxed{0.5}'
  rewardkit verify mcq --reference B --option Paris --option London 'Answer: (B)'
  rewardkit plugins
  rewardkit score --reward examples/math_spec.yaml --input examples/math.jsonl
  rewardkit audit --reward examples/math_spec.yaml
"""


class LazyGroup(click.Group):
    """Subcommands that live in optional modules are imported only when asked for."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *(n for n in LAZY_COMMANDS if self._importable(n))})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        command = super().get_command(ctx, cmd_name)
        if command is not None or cmd_name not in LAZY_COMMANDS:
            return command
        module_name, _, attr = LAZY_COMMANDS[cmd_name].partition(":")
        try:
            return getattr(importlib.import_module(module_name), attr)
        except (ImportError, AttributeError) as exc:
            raise click.ClickException(f"command {cmd_name!r} is unavailable: {exc}") from exc

    @staticmethod
    def _importable(cmd_name: str) -> bool:
        module_name = LAZY_COMMANDS[cmd_name].partition(":")[0]
        return importlib.util.find_spec(module_name) is not None


@click.group(cls=LazyGroup, epilog=EPILOG)
@click.version_option(package_name="rewardkit")
def main() -> None:
    """rewardkit: verifiers and reward shaping for GRPO training."""


def _parse_value(raw: str) -> Any:
    try:
        return json.loads(raw)
    except json.JSONDecodeError:
        return raw


@main.command()
@click.argument("verifier")
@click.argument("completion")
@click.option("--reference", "-r", required=True, help="The gold answer (JSON for structured references).")
@click.option("--option", "options", multiple=True, help="An MCQ option text, in order A, B, C, ...")
@click.option("--label", "labels", multiple=True, help="MCQ: each --option's label when not A, B, C (ARC: 1, 2, ...).")
@click.option("--choices", "choices", default=None, metavar="JSON",
              help='MCQ options as a dataset stores them: ["Paris", ...] (MMLU) or {"text": [...], "label": [...]} (ARC).')
@click.option("--param", "-p", "params", multiple=True, metavar="KEY=VALUE", help="A verifier parameter.")
@click.option("--context", "-c", "contexts", multiple=True, metavar="KEY=VALUE", help="A context field.")
def verify(
    verifier: str, completion: str, reference: str, options: tuple[str, ...], labels: tuple[str, ...],
    choices: str | None, params: tuple[str, ...], contexts: tuple[str, ...],
) -> None:
    """Judge one COMPLETION with VERIFIER and print the verdict as JSON.

    Use '-' as COMPLETION to read it from standard input.
    """
    import rewardkit as rk

    if completion == "-":
        completion = sys.stdin.read()
    kwargs = dict(_split_pair(p) for p in params)
    context = dict(_split_pair(c) for c in contexts)
    if options:
        context["options"] = list(options)
    if choices is not None:
        context["choices"] = _parse_value(choices)
    if labels:
        context["labels"] = list(labels)
    ref: Any = reference if verifier in ("math", "mcq") else _parse_value(reference)
    if verifier == "mcq" and reference.strip().isdigit() and not _digit_labelled(context):
        ref = int(reference)  # MMLU's 0-based answer index; with labels 1, 2, ... it is a label (ARC)
    try:
        judge = rk.get_verifier(verifier, **kwargs)
    except rk.RewardkitError as exc:
        raise click.ClickException(str(exc)) from exc
    except (TypeError, ValueError) as exc:  # a plugin verifier's own constructor rejected a value
        raise click.ClickException(f"bad parameters for verifier {verifier!r}: {exc}") from exc
    try:
        with judge as v:
            verdict = v.verify(completion, ref, **context)
    except rk.RewardkitError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(json.dumps(verdict.to_dict(), indent=2, default=str))


def _digit_labelled(context: dict[str, Any]) -> bool:
    choices = context.get("choices")
    labels = choices.get("label") if isinstance(choices, dict) else context.get("labels")
    return isinstance(labels, list) and bool(labels) and str(labels[0]).strip() == "1"


def _split_pair(raw: str) -> tuple[str, Any]:
    key, sep, value = raw.partition("=")
    if not sep:
        raise click.BadParameter(f"expected KEY=VALUE, got {raw!r}")
    return key.strip(), _parse_value(value)


@main.command()
@click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON.")
def plugins(as_json: bool) -> None:
    """List loaded plugins, their hooks, versions and what each registered."""
    import rewardkit as rk

    try:
        rows = rk.plugin_host().describe()
    except rk.RewardkitError as exc:
        raise click.ClickException(str(exc)) from exc
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        return
    from rewardkit.plugins.registry import plural

    for row in rows:
        version = f" {row['version']}" if row["version"] else ""
        dist = f" ({row['distribution']}{version})" if row["distribution"] else ""
        click.echo(f"{row['name']}{dist} [{row['source']}]")
        click.echo(f"  hooks: {', '.join(row['hooks']) or '(none)'}")
        for kind, names in sorted(row["registered"].items()):
            click.echo(f"  {plural(kind)}: {', '.join(names)}")


if __name__ == "__main__":
    main()
