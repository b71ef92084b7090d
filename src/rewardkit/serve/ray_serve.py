"""``rewardkit serve --ray``: the same app, one copy per Ray Serve replica, behind Serve's HTTP proxy.

Each replica builds the reward from the spec (sent as data, so nodes need no copy of the file) and serves
``create_app(reward, settings)``: the same routes, token, limits and micro-batcher as ``rewardkit serve``.
Serve routes each request to a replica, restarts a replica that dies, and scales between
``min_replicas`` and ``max_replicas`` on requests in flight; a request lost with a dead replica is
answered 5xx by the proxy and retried by ``RemoteReward`` (scoring is idempotent). Needs ``ray[serve]``.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from rewardkit._errors import ConfigError
from rewardkit._install import extra_hint
from rewardkit.serve.settings import ServeSettings

APP_NAME = "rewardkit"
DEPLOYMENT = "RewardReplica"
RAY_SERVE_EXTRA = extra_hint("serve,ray-serve")


@dataclass(frozen=True)
class RayServeOptions:
    """How many replicas (fixed, or autoscaled between bounds), their CPUs, and the cluster to use."""

    replicas: int = 2
    min_replicas: int | None = None
    max_replicas: int | None = None
    replica_cpus: float = 1.0
    address: str | None = None
    target_ongoing_requests: int = 64
    graceful_shutdown_timeout: float = 60.0

    def __post_init__(self) -> None:
        if self.replicas < 1:
            raise ConfigError(f"serve --ray: replicas must be >= 1, got {self.replicas}")
        if (self.min_replicas is None) != (self.max_replicas is None):
            raise ConfigError("serve --ray: min_replicas and max_replicas go together (the autoscaling bounds)")
        if self.min_replicas is not None and not 0 <= self.min_replicas <= (self.max_replicas or 0):
            raise ConfigError(
                f"serve --ray: need 0 <= min_replicas <= max_replicas, max_replicas >= 1; "
                f"got {self.min_replicas}..{self.max_replicas}"
            )
        if self.max_replicas is not None and self.max_replicas < 1:
            raise ConfigError("serve --ray: max_replicas must be >= 1")

    @property
    def autoscaling(self) -> bool:
        return self.min_replicas is not None

    def describe(self) -> str:
        if self.autoscaling:
            return f"{self.min_replicas}..{self.max_replicas} replicas (autoscaling), {self.replica_cpus:g} CPU each"
        return f"{self.replicas} replicas, {self.replica_cpus:g} CPU each"

    def deployment_options(self, settings: ServeSettings) -> dict[str, Any]:
        options: dict[str, Any] = {
            "name": DEPLOYMENT,
            "ray_actor_options": {"num_cpus": self.replica_cpus},
            # Many small requests in flight per replica are what its micro-batcher merges.
            "max_ongoing_requests": max(settings.batch_rows * settings.concurrency, 16),
            "graceful_shutdown_timeout_s": self.graceful_shutdown_timeout,
        }
        if self.autoscaling:
            options["autoscaling_config"] = {
                "min_replicas": self.min_replicas,
                "max_replicas": self.max_replicas,
                "target_ongoing_requests": self.target_ongoing_requests,
            }
        else:
            options["num_replicas"] = self.replicas
        return options


def reward_source(
    reward_arg: str | Mapping[str, Any], params: Mapping[str, Any], reference_key: str | None
) -> dict[str, Any]:
    """What a replica builds its reward from: the spec's data (a registered name and its parameters as a
    one-term spec, ``scoring.loading.spec_data``), checked here first so a bad spec fails before any replica
    starts."""
    from rewardkit.scoring.loading import resolve_reward, spec_data

    resolve_reward(reward_arg, dict(params), reference_key).close()
    return {"reward": spec_data(reward_arg, params), "reference_key": reference_key}


def _replica_class() -> Any:
    try:
        from ray import serve
    except ImportError as exc:
        raise ConfigError(f"rewardkit serve --ray needs Ray Serve ({exc}): {RAY_SERVE_EXTRA}") from None

    @serve.ingress()
    class RewardReplica:
        """One replica: the reward, built once, behind the service app."""

        def __init__(self, source: dict[str, Any], settings: ServeSettings) -> None:
            from rewardkit.scoring.loading import resolve_reward

            self.reward = resolve_reward(source["reward"], None, source["reference_key"])
            self.settings = settings

        def __serve_build_asgi_app__(self) -> Any:
            from rewardkit.serve.app import create_app

            return create_app(self.reward, self.settings, close_reward=True)

    return RewardReplica


def start(source: dict[str, Any], settings: ServeSettings, options: RayServeOptions, *, init_ray: bool = True) -> str:
    """Deploy the replicas and Serve's proxy on ``settings.host``/``settings.port``; returns the URL once the
    application is running. ``init_ray=False`` uses a Ray already initialised in this process."""
    import ray
    from ray import serve

    if init_ray and not ray.is_initialized():
        ray.init(address=options.address, log_to_driver=False, configure_logging=False)
    serve.start(http_options={"host": settings.host, "port": settings.port})
    replica = serve.deployment(**options.deployment_options(settings))(_replica_class())
    serve.run(replica.bind(source, settings), name=APP_NAME, route_prefix="/", blocking=False)
    host = f"[{settings.host}]" if ":" in settings.host else settings.host
    return f"http://{host}:{settings.port}"


def stop() -> None:
    """Delete the application: Serve stops routing to its replicas and lets their requests finish."""
    from ray import serve

    serve.delete(APP_NAME)
    serve.shutdown()


def serve_on_ray(
    reward_arg: str,
    params: Mapping[str, Any],
    reference_key: str | None,
    settings: ServeSettings,
    options: RayServeOptions,
    on_ready: Callable[[str], None] | None = None,
) -> None:
    """Run until SIGTERM or Ctrl-C, then drain the replicas and shut Serve and Ray down."""
    import ray

    if settings.port == 0:
        raise ConfigError("serve --ray: give a --port (Ray Serve's proxy cannot pick a free one)")
    source = reward_source(reward_arg, params, reference_key)
    stopping = threading.Event()
    previous = {sig: signal.signal(sig, lambda *_: stopping.set()) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        url = start(source, settings, options)
        if on_ready is not None:
            on_ready(url)
        while not stopping.wait(1.0):
            pass
        stop()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        ray.shutdown()
