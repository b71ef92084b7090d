"""``rewardkit plugins``: list the loaded plugins and what each registered."""

from __future__ import annotations

import json

import click


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON.")
def plugins(as_json: bool) -> None:
    """List loaded plugins, their hooks, versions and what each registered."""
    from rewardkit._errors import RewardkitError
    from rewardkit.plugins.manager import default_host

    try:
        rows = default_host().describe()
    except RewardkitError as exc:
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
