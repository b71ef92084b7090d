"""The ``rewardkit`` command line: the click group, and one module per command beside it.

``rewardkit --help`` imports only click: each command's module (``cli/score.py``, ``cli/train.py``, ...)
is imported when that command runs, and imports what it needs (torch, Ray) inside the command.
The CLI is the top layer: it may import every other part of rewardkit.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import warnings
from collections.abc import Iterator
from typing import Any

import click

from rewardkit._errors import PluginWarning

LAZY_COMMANDS = {
    "verify": "rewardkit.cli.verify:verify",
    "plugins": "rewardkit.cli.plugins:plugins",
    "score": "rewardkit.cli.score:score",
    "train": "rewardkit.cli.train:train",
    "group-size-sweep": "rewardkit.cli.train:group_size_sweep",
    "sandbox-image": "rewardkit.cli.sandbox_image:sandbox_image",
    "bench": "rewardkit.cli.bench:bench",
    "audit": "rewardkit.cli.audit:audit",
    "serve": "rewardkit.cli.serve:serve",
}

EPILOG = """\b
Examples:
  rewardkit verify math --reference '\\frac12' 'The answer is \\boxed{0.5}'
  rewardkit verify mcq --reference B --option Paris --option London 'Answer: (B)'
  rewardkit plugins
  rewardkit score --reward examples/math_spec.yaml --input examples/math.jsonl
  rewardkit audit --reward examples/math_spec.yaml
  rewardkit serve --reward examples/math_spec.yaml --port 8000
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
            lazy: click.Command = getattr(importlib.import_module(module_name), attr)
            return lazy
        except (ImportError, AttributeError) as exc:
            raise click.ClickException(f"command {cmd_name!r} is unavailable: {exc}") from exc

    @staticmethod
    def _importable(cmd_name: str) -> bool:
        module_name = LAZY_COMMANDS[cmd_name].partition(":")[0]
        return importlib.util.find_spec(module_name) is not None


@contextlib.contextmanager
def _plugin_warnings_as_lines() -> Iterator[None]:
    """A broken plugin's warning reads as one line on stderr, without a Python source location."""
    with warnings.catch_warnings():
        show_others = warnings.showwarning

        def show(message: Any, category: type[Warning], *args: Any, **kwargs: Any) -> None:
            if issubclass(category, PluginWarning):
                click.echo(f"Warning: {message}", err=True)
            else:
                show_others(message, category, *args, **kwargs)

        warnings.showwarning = show
        yield


@click.group(cls=LazyGroup, epilog=EPILOG)
@click.version_option(package_name="rewardkit")
@click.pass_context
def main(ctx: click.Context) -> None:
    """rewardkit: verifiers and reward shaping for GRPO training."""
    ctx.with_resource(_plugin_warnings_as_lines())
