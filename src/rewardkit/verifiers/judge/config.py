"""Settings of the judge verifier, checked when a spec is built."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import ClassVar

from rewardkit._errors import ConfigError
from rewardkit.verifiers.judge.prompt import (
    DEFAULT_SYSTEM_TEMPLATE,
    DEFAULT_USER_TEMPLATE,
    PLACEHOLDERS,
    check_template,
)


def _positive(name: str, value: float | None, *, allow_none: bool = False) -> None:
    if value is None and allow_none:
        return
    if value is None or isinstance(value, bool) or not (isinstance(value, (int, float)) and value > 0):
        raise ConfigError(f"judge: {name} must be a positive number, got {value!r}")
    if math.isinf(value):
        raise ConfigError(f"judge: {name} must be finite, got {value!r}")


@dataclass(frozen=True)
class JudgeConfig:
    """Settings of :class:`~rewardkit.verifiers.judge.verifier.JudgeVerifier` (docs/judge.md lists them).

    ``api_key_env`` names the environment variable that holds the API key (the key itself is never a
    parameter). ``timeout`` bounds one try, ``deadline`` the whole call with its retries and waits.
    """

    PLACEHOLDERS: ClassVar[tuple[str, ...]] = PLACEHOLDERS
    NEEDED: ClassVar[tuple[str, ...]] = ("completion",)

    base_url: str
    model: str
    api_key_env: str | None = None
    max_tokens: int = 256
    temperature: float = 0.0
    timeout: float = 60.0
    deadline: float = 300.0
    max_tries: int = 6
    backoff: float = 0.5
    max_backoff: float = 30.0
    max_concurrency: int = 8
    requests_per_minute: float | None = None
    tokens_per_minute: float | None = None
    system_template: str | None = DEFAULT_SYSTEM_TEMPLATE
    user_template: str = DEFAULT_USER_TEMPLATE
    response_format: bool = True
    cache_dir: str | None = None
    price_per_prompt_token: float = 0.0
    price_per_completion_token: float = 0.0

    def __post_init__(self) -> None:
        if not isinstance(self.base_url, str) or not self.base_url.startswith(("http://", "https://")):
            raise ConfigError(
                f"judge: base_url must be an http:// or https:// address such as http://localhost:8000/v1, "
                f"got {self.base_url!r}"
            )
        if not isinstance(self.model, str) or not self.model:
            raise ConfigError(f"judge: model must be the served model's name, got {self.model!r}")
        if self.api_key_env is not None and (not isinstance(self.api_key_env, str) or not self.api_key_env):
            raise ConfigError(f"judge: api_key_env must name an environment variable, got {self.api_key_env!r}")
        for name in ("max_tokens", "max_tries", "max_concurrency"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"judge: {name} must be an integer >= 1, got {value!r}")
        for name in ("timeout", "deadline"):
            _positive(name, getattr(self, name))
        for name in ("requests_per_minute", "tokens_per_minute"):
            _positive(name, getattr(self, name), allow_none=True)
        for name in ("temperature", "backoff", "max_backoff", "price_per_prompt_token", "price_per_completion_token"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < math.inf:
                raise ConfigError(f"judge: {name} must be a finite number >= 0, got {value!r}")
        if self.system_template is not None:
            check_template("system_template", self.system_template, allowed=self.PLACEHOLDERS)
        check_template("user_template", self.user_template, needs=self.NEEDED, allowed=self.PLACEHOLDERS)

    def api_key(self) -> str | None:
        """The key from the environment variable ``api_key_env`` names; ConfigError when it is unset."""
        if self.api_key_env is None:
            return None
        key = os.environ.get(self.api_key_env)
        if not key:
            raise ConfigError(
                f"judge: api_key_env names the environment variable {self.api_key_env!r}, which is not set "
                f"(or empty) in this process; export it, or drop api_key_env for a server without a key"
            )
        return key
