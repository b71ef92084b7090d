"""The reward service's settings (one frozen dataclass) and where its bearer token comes from."""

from __future__ import annotations

import ipaddress
import math
import os
from dataclasses import dataclass
from pathlib import Path

from rewardkit._errors import ConfigError

TOKEN_ENV = "REWARDKIT_SERVE_TOKEN"
MIN_TOKEN_CHARS = 16
MAKE_TOKEN = "python -c 'import secrets; print(secrets.token_urlsafe(32))'"


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and loopback addresses (127.0.0.0/8, ::1); False for 0.0.0.0 and the rest."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a host name: it may resolve to anything


@dataclass(frozen=True)
class ServeSettings:
    """How a reward service listens, whom it serves and how much it takes at once.

    ``token``: the bearer token every scoring request and ``/metrics`` must carry (None: no auth, allowed
    only on a loopback address). ``max_body_bytes``/``max_rows``: per request (413 beyond them).
    ``request_timeout``: seconds a request may take, queue included (504 after). ``queue_rows``: rows that
    may wait to be scored (429 with ``Retry-After`` beyond). ``batch_rows``/``batch_wait``/``concurrency``:
    the micro-batcher (rows per reward call, seconds a call waits for company when the service is idle,
    reward calls at once). ``none_reward``: the number sent for a row that has no value on the endpoints
    whose trainers take only numbers (OpenRLHF's, slime's); None sends JSON null. ``drain_timeout``: seconds
    in-flight requests get to finish after SIGTERM.
    """

    host: str = "127.0.0.1"
    port: int = 8000
    token: str | None = None
    max_body_bytes: int = 32 << 20
    max_rows: int = 4096
    request_timeout: float = 300.0
    queue_rows: int = 8192
    batch_rows: int = 256
    batch_wait: float = 0.002
    concurrency: int = 2
    none_reward: float | None = None
    retry_after: int = 1
    drain_timeout: float = 60.0

    def __post_init__(self) -> None:
        if not is_loopback(self.host) and not self.token:
            raise ConfigError(
                f"serve: binding {self.host!r} exposes the reward beyond this machine; give a bearer token "
                f"(--token-file PATH or ${TOKEN_ENV}) or bind 127.0.0.1"
            )
        if self.token is not None and len(self.token) < MIN_TOKEN_CHARS:
            raise ConfigError(
                f"serve: the bearer token has {len(self.token)} characters, at least {MIN_TOKEN_CHARS} are needed; "
                f"make one with {MAKE_TOKEN}"
            )
        for name in ("max_body_bytes", "max_rows", "queue_rows", "batch_rows", "concurrency", "retry_after"):
            if getattr(self, name) < 1:
                raise ConfigError(f"serve: {name} must be >= 1, got {getattr(self, name)!r}")
        if not 0 <= self.port <= 65535:
            raise ConfigError(f"serve: port must be in 0..65535, got {self.port!r}")
        for name in ("request_timeout", "drain_timeout"):
            if not getattr(self, name) > 0:
                raise ConfigError(f"serve: {name} must be > 0 seconds, got {getattr(self, name)!r}")
        if self.batch_wait < 0:
            raise ConfigError(f"serve: batch_wait must be >= 0 seconds, got {self.batch_wait!r}")
        if self.none_reward is not None and not math.isfinite(self.none_reward):
            raise ConfigError(f"serve: none_reward must be a finite number or None, got {self.none_reward!r}")

    @property
    def auth(self) -> bool:
        return self.token is not None


def load_token(token_file: str | Path | None = None, env: str = TOKEN_ENV) -> str | None:
    """The bearer token from ``token_file`` (its first line), else from the environment variable, else None."""
    if token_file is not None:
        path = Path(token_file)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise ConfigError(f"serve: cannot read the token file {str(path)!r}: {exc.strerror or exc}") from None
        token = text.strip().splitlines()[0].strip() if text.strip() else ""
        if not token:
            raise ConfigError(f"serve: the token file {str(path)!r} is empty; put the token on its first line")
        return token
    value = os.environ.get(env, "").strip()
    return value or None
