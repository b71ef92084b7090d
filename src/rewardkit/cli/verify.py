"""``rewardkit verify``: judge one completion with a verifier and print the verdict."""

from __future__ import annotations

import json
import sys
from typing import Any

import click


def _parse_value(raw: str) -> Any:
    try:
        return json.loads(raw)
    except json.JSONDecodeError:
        return raw


@click.command()
@click.argument("verifier")
@click.argument("completion")
@click.option("--reference", "-r", required=True, help="The gold answer (JSON for structured references).")
@click.option("--option", "options", multiple=True, help="An MCQ option text, in order A, B, C, ...")
@click.option("--label", "labels", multiple=True, help="MCQ: each --option's label when not A, B, C (ARC: 1, 2, ...).")
@click.option(
    "--choices",
    "choices",
    default=None,
    metavar="JSON",
    help='MCQ options as a dataset stores them: ["Paris", ...] (MMLU) or {"text": [...], "label": [...]} (ARC).',
)
@click.option("--param", "-p", "params", multiple=True, metavar="KEY=VALUE", help="A verifier parameter.")
@click.option("--context", "-c", "contexts", multiple=True, metavar="KEY=VALUE", help="A context field.")
def verify(
    verifier: str,
    completion: str,
    reference: str,
    options: tuple[str, ...],
    labels: tuple[str, ...],
    choices: str | None,
    params: tuple[str, ...],
    contexts: tuple[str, ...],
) -> None:
    """Judge one COMPLETION with VERIFIER and print the verdict as JSON.

    Use '-' as COMPLETION to read it from standard input.
    """
    from rewardkit._errors import RewardkitError
    from rewardkit.verifiers.lookup import get_verifier

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
        judge = get_verifier(verifier, **kwargs)
    except RewardkitError as exc:
        raise click.ClickException(str(exc)) from exc
    except (TypeError, ValueError) as exc:  # a plugin verifier's own constructor rejected a value
        raise click.ClickException(f"bad parameters for verifier {verifier!r}: {exc}") from exc
    try:
        with judge as v:
            verdict = v.verify(completion, ref, **context)
    except RewardkitError as exc:
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
