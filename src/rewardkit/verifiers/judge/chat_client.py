"""One chat-completions call to an OpenAI-compatible endpoint, with the retries that are safe to make.

Retried, with exponential backoff (and the server's ``Retry-After`` when it sends one): connection errors,
timeouts, 429, every 5xx, and a 200 whose body is not the JSON of a chat completion. A 400 that names
``response_format`` (a server without guided decoding) is tried once more without it, and the endpoint is
remembered as one that refuses it. Any other 4xx is not retried. Nothing is retried past the deadline.
"""

from __future__ import annotations

import email.utils
import random
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rewardkit._errors import ConfigError
from rewardkit._install import extra_hint
from rewardkit.verifiers.judge.limits import Limits, LimitTimeout, estimate_tokens

JUDGE_EXTRA = extra_hint("judge")

#: Endpoints (base_url, model) that refused ``response_format`` in this process: asked without it from then on.
_refuses_response_format: set[tuple[str, str]] = set()
_refusals_lock = threading.Lock()


def httpx_module() -> Any:
    """httpx, or a ConfigError naming the extra that installs it."""
    try:
        import httpx
    except ImportError as exc:
        raise ConfigError(f"the judge verifier needs httpx ({exc}): {JUDGE_EXTRA}") from None
    return httpx


class JudgeCallError(Exception):
    """The call failed after its tries: the message names the URL, the last status or error and the tries."""

    def __init__(self, message: str, attempts: int) -> None:
        super().__init__(message)
        self.attempts = attempts


@dataclass(frozen=True)
class ChatReply:
    """The judge's text and what it cost."""

    content: str
    prompt_tokens: int | None
    completion_tokens: int | None
    attempts: int
    response_format: bool


@dataclass(frozen=True)
class CallSettings:
    """How one call is made: its endpoint, sampling, time limits and retry policy."""

    base_url: str
    model: str
    max_tokens: int
    temperature: float
    timeout: float
    deadline: float
    max_tries: int
    backoff: float
    max_backoff: float
    response_format: bool


def retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds the server asks to wait (``Retry-After`` as seconds or an HTTP date), or None."""
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _refuses_format(response: Any) -> bool:
    if response.status_code != 400:
        return False
    text = response.text.lower()
    return "response_format" in text or "json_schema" in text


class ChatClient:
    """A shared httpx client for one endpoint; :meth:`complete` is safe to call from many threads."""

    def __init__(self, settings: CallSettings, api_key: str | None, limits: Limits) -> None:
        httpx = httpx_module()
        self.settings = settings
        self.url = settings.base_url.rstrip("/") + "/chat/completions"
        self.limits = limits
        headers = {"content-type": "application/json"}
        if api_key:
            headers["authorization"] = f"Bearer {api_key}"
        slots = limits.max_concurrency
        self._client = httpx.Client(
            headers=headers,
            timeout=httpx.Timeout(settings.timeout),
            limits=httpx.Limits(max_connections=slots, max_keepalive_connections=slots),
        )

    @property
    def endpoint(self) -> tuple[str, str]:
        return (self.settings.base_url.rstrip("/"), self.settings.model)

    def _body(
        self, messages: list[dict[str, str]], with_format: bool, schema: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        from rewardkit.verifiers.judge.prompt import RESPONSE_FORMAT

        body: dict[str, Any] = {
            "model": self.settings.model,
            "messages": messages,
            "temperature": self.settings.temperature,
            "max_tokens": self.settings.max_tokens,
        }
        if with_format:
            body["response_format"] = dict(schema) if schema is not None else RESPONSE_FORMAT
        return body

    def complete(self, messages: list[dict[str, str]], schema: Mapping[str, Any] | None = None) -> ChatReply:
        """The judge's reply to ``messages``; :class:`JudgeCallError` once the tries or the deadline run out.
        ``schema``: the ``response_format`` to ask for (the verdict schema when None)."""
        httpx = httpx_module()
        s = self.settings
        deadline = time.monotonic() + s.deadline
        estimate = estimate_tokens(messages, s.max_tokens)
        with _refusals_lock:
            with_format = s.response_format and self.endpoint not in _refuses_response_format
        attempts = 0
        format_retried = False
        last = "no try was made"
        while True:
            attempts += 1
            wait: float | None = None
            try:
                self.limits.admit(estimate, deadline)
            except LimitTimeout as exc:
                raise JudgeCallError(f"{self.url}: {exc} after {attempts - 1} tries", attempts - 1) from None
            with self.limits.in_flight:
                try:
                    response = self._client.post(self.url, json=self._body(messages, with_format, schema))
                except httpx.TransportError as exc:
                    response = None
                    last = f"{type(exc).__name__}: {exc}"
            if response is not None:
                reply = self._read(response, attempts, with_format, estimate)
                if isinstance(reply, ChatReply):
                    return reply
                if reply == "format" and not format_retried:
                    format_retried, with_format = True, False
                    with _refusals_lock:
                        _refuses_response_format.add(self.endpoint)
                    attempts -= 1  # the refusal is a question of format, not a failed try
                    continue
                last = f"status {response.status_code}: {response.text[:200]!r}"
                if reply == "final":
                    raise JudgeCallError(f"{self.url} refused the call ({last}) after {attempts} tries", attempts)
                wait = retry_after(response.headers)
                self.limits.settle(estimate, 0)  # a refused call used no tokens
            if attempts >= s.max_tries:
                raise JudgeCallError(f"{self.url} failed after {attempts} tries; last: {last}", attempts)
            if wait is None:
                wait = min(s.max_backoff, s.backoff * 2 ** (attempts - 1)) * (0.5 + random.random() / 2)
            if time.monotonic() + wait > deadline:
                raise JudgeCallError(
                    f"{self.url} failed after {attempts} tries and the next wait ({wait:.1f}s) passes the "
                    f"deadline of {s.deadline}s; last: {last}",
                    attempts,
                )
            time.sleep(wait)

    def _read(self, response: Any, attempts: int, with_format: bool, estimate: int) -> ChatReply | str:
        """A reply, or what to do: ``"retry"``, ``"format"`` (retry without response_format), ``"final"``."""
        code = response.status_code
        if code == 429 or code >= 500:
            return "retry"
        if _refuses_format(response) and with_format:
            return "format"
        if code != 200:
            return "final"
        try:
            data = response.json()
            content = data["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            return "retry"  # a proxy's error page or a cut-off body: the next try may be whole
        usage = data.get("usage") if isinstance(data, dict) else None
        usage = usage if isinstance(usage, dict) else {}
        prompt_tokens = _count(usage.get("prompt_tokens"))
        completion_tokens = _count(usage.get("completion_tokens"))
        used = None if prompt_tokens is None else prompt_tokens + (completion_tokens or 0)
        self.limits.settle(estimate, used)
        return ChatReply(
            content if isinstance(content, str) else "", prompt_tokens, completion_tokens, attempts, with_format
        )

    def close(self) -> None:
        self._client.close()


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def forget_format_refusals() -> None:
    """Forget which endpoints refused ``response_format`` (tests; a server that gained guided decoding)."""
    with _refusals_lock:
        _refuses_response_format.clear()
