"""``rewardkit plugins``: list the plugins, what each registered, and the ones that failed to load."""

from __future__ import annotations

import json
from typing import Any

import click


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON.")
def plugins(as_json: bool) -> None:
    """List plugins, their hooks, versions and what each registered, and every plugin that failed to load.

    A broken plugin is listed in a strict run too (REWARDKIT_STRICT_PLUGINS=1 or CI=true), which then exits
    with an error.
    """
    from rewardkit._errors import PluginError, RewardkitError
    from rewardkit.plugins.manager import PluginHost, default_host

    strict_failure: PluginError | None = None
    try:
        try:
            rows = default_host().describe()
        except PluginError as exc:
            strict_failure = exc
            rows = PluginHost.from_env(strict=False).describe()
    except RewardkitError as exc:
        raise click.ClickException(str(exc)) from exc
    if as_json:
        click.echo(json.dumps(rows, indent=2))
    else:
        _print_rows(rows)
    if strict_failure is not None:
        raise click.ClickException(str(strict_failure))


def _print_rows(rows: list[dict[str, Any]]) -> None:
    from rewardkit.plugins.registry import plural

    for row in rows:
        version = f" {row['version']}" if row["version"] else ""
        dist = f" ({row['distribution']}{version})" if row["distribution"] else ""
        click.echo(f"{row['name']}{dist} [{row['source']}]" + (" BROKEN" if row["broken"] else ""))
        if row["broken"]:
            click.echo(f"  error: {row['error']}")
            continue
        click.echo(f"  hooks: {', '.join(row['hooks']) or '(none)'}")
        for kind, names in sorted(row["registered"].items()):
            click.echo(f"  {plural(kind)}: {', '.join(names)}")
