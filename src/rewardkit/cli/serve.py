"""``rewardkit serve``: a reward behind HTTP (OpenRLHF, slime, NeMo-Gym and rewardkit's own shape).

The command parses flags, builds the reward once and hands both to the app factory
(``rewardkit.serve.app.create_app``); see docs/serving.md.
"""

from __future__ import annotations

import sys
from typing import Any

import click

from rewardkit._errors import ConfigError, RewardkitError
from rewardkit._install import extra_hint
from rewardkit.cli.score import split_param

SERVE_EXTRA = extra_hint("serve")


@click.command()
@click.option(
    "--reward", "-r", "reward_arg", required=True, help="A reward spec (YAML/JSON file) or a registered reward name."
)
@click.option("--param", "-p", "params", multiple=True, help="KEY=VALUE parameter of the registered reward (JSON).")
@click.option("--reference-key", default=None, help="Column every verifier-backed term reads its reference from.")
@click.option(
    "--host", default="127.0.0.1", show_default=True, help="Address to bind; beyond loopback a token is required."
)
@click.option("--port", default=8000, show_default=True, type=int, help="Port to bind (0: any free port).")
@click.option(
    "--token-file",
    type=click.Path(dir_okay=False),
    default=None,
    help="File holding the bearer token (first line); else $REWARDKIT_SERVE_TOKEN; else no auth (loopback only).",
)
@click.option("--max-body-bytes", default=32 << 20, show_default=True, type=int, help="Largest request body.")
@click.option("--max-rows", default=4096, show_default=True, type=int, help="Most rows in one request.")
@click.option("--request-timeout", default=300.0, show_default=True, type=float, help="Seconds per request.")
@click.option("--queue-rows", default=8192, show_default=True, type=int, help="Rows that may wait (429 beyond).")
@click.option("--batch-rows", default=256, show_default=True, type=int, help="Most rows per reward call.")
@click.option("--batch-wait-ms", default=2.0, show_default=True, type=float, help="Wait for company when idle.")
@click.option("--concurrency", default=2, show_default=True, type=int, help="Reward calls at once.")
@click.option(
    "--none-reward",
    default=None,
    type=float,
    help="Number sent to OpenRLHF and slime for a row with no value (default: JSON null).",
)
@click.option("--drain-timeout", default=60.0, show_default=True, type=float, help="Seconds to drain on SIGTERM.")
@click.option("--access-log", is_flag=True, help="Log every request (uvicorn's access log).")
@click.option("--ray", "on_ray", is_flag=True, help="Run under Ray Serve (the 'ray-serve' extra).")
@click.option("--ray-address", default=None, help="Ray cluster to join (default: RAY_ADDRESS or a new local one).")
@click.option("--replicas", default=2, show_default=True, type=int, help="Ray Serve replicas (fixed).")
@click.option("--min-replicas", default=None, type=int, help="Ray Serve autoscaling: fewest replicas.")
@click.option("--max-replicas", default=None, type=int, help="Ray Serve autoscaling: most replicas.")
@click.option("--replica-cpus", default=1.0, show_default=True, type=float, help="CPUs Ray reserves per replica.")
def serve(
    reward_arg: str,
    params: tuple[str, ...],
    reference_key: str | None,
    host: str,
    port: int,
    token_file: str | None,
    max_body_bytes: int,
    max_rows: int,
    request_timeout: float,
    queue_rows: int,
    batch_rows: int,
    batch_wait_ms: float,
    concurrency: int,
    none_reward: float | None,
    drain_timeout: float,
    access_log: bool,
    on_ray: bool,
    ray_address: str | None,
    replicas: int,
    min_replicas: int | None,
    max_replicas: int | None,
    replica_cpus: float,
) -> None:
    """Serve a reward over HTTP: POST /v1/score, /get_reward (OpenRLHF), /reward (slime), /verify (NeMo-Gym).

    The spec is fixed at start. Binds 127.0.0.1; any other address needs a bearer token. SIGTERM drains.
    """
    import importlib.util

    missing = [m for m in ("fastapi", "uvicorn") if importlib.util.find_spec(m) is None]
    if missing:
        raise click.ClickException(f"rewardkit serve needs {', '.join(missing)}: {SERVE_EXTRA}")
    from rewardkit.serve.settings import ServeSettings, load_token

    try:
        settings = ServeSettings(
            host=host,
            port=port,
            token=load_token(token_file),
            max_body_bytes=max_body_bytes,
            max_rows=max_rows,
            request_timeout=request_timeout,
            queue_rows=queue_rows,
            batch_rows=batch_rows,
            batch_wait=batch_wait_ms / 1000.0,
            concurrency=concurrency,
            none_reward=none_reward,
            drain_timeout=drain_timeout,
        )
        parsed = dict(split_param(p) for p in params)
        if on_ray:
            _serve_on_ray(
                reward_arg,
                parsed,
                reference_key,
                settings,
                ray_address,
                replicas,
                min_replicas,
                max_replicas,
                replica_cpus,
            )
            return
        _serve_here(reward_arg, parsed, reference_key, settings, access_log)
    except RewardkitError as exc:
        raise click.ClickException(str(exc)) from None


def _serve_here(
    reward_arg: str, params: dict[str, Any], reference_key: str | None, settings: Any, access_log: bool
) -> None:
    from rewardkit.scoring.loading import resolve_reward
    from rewardkit.serve.app import create_app
    from rewardkit.serve.server import run_app

    reward = resolve_reward(reward_arg, params, reference_key)
    auth = "bearer token" if settings.auth else "none (loopback only)"

    def ready(url: str) -> None:
        click.echo(f"rewardkit serve: {reward.name!r} on {url} (auth: {auth}); docs at {url}/docs", err=True)

    with reward:
        started = run_app(create_app(reward, settings), access_log=access_log, on_ready=ready)
    if not started:
        click.echo(f"rewardkit serve: could not start on {settings.host}:{settings.port}", err=True)
        sys.exit(1)
    click.echo("rewardkit serve: drained and stopped", err=True)


def _serve_on_ray(
    reward_arg: str,
    params: dict[str, Any],
    reference_key: str | None,
    settings: Any,
    address: str | None,
    replicas: int,
    min_replicas: int | None,
    max_replicas: int | None,
    replica_cpus: float,
) -> None:
    from rewardkit.serve.ray_serve import RayServeOptions, serve_on_ray

    if (min_replicas is None) != (max_replicas is None):
        raise ConfigError("--min-replicas and --max-replicas go together (autoscaling bounds)")
    options = RayServeOptions(
        replicas=replicas,
        min_replicas=min_replicas,
        max_replicas=max_replicas,
        replica_cpus=replica_cpus,
        address=address,
    )
    serve_on_ray(
        reward_arg,
        params,
        reference_key,
        settings,
        options,
        on_ready=lambda url: click.echo(f"rewardkit serve --ray: on {url} ({options.describe()})", err=True),
    )
    click.echo("rewardkit serve --ray: drained and stopped", err=True)
