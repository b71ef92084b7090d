"""``rk.RemoteReward``: a reward scored by a ``rewardkit serve`` service, with TRL's reward contract.

It is a :class:`~rewardkit.rewards.base.Reward`: called as TRL calls a reward, it posts the batch to
``POST /v1/score`` and logs components and statuses through TRL's ``log_metric``/``log_extra`` exactly as
the same reward in-process does (the service returns the in-process ``Scored``). ``as_async()`` is a
native coroutine reward. Only what is safe to repeat is retried (scoring has no side effects): connection
errors, timeouts, 429 and 503 (after ``Retry-After``), and a gateway's or proxy's 5xx; a refusal from the
service itself (a bad row, a reward error, too many infrastructure failures) is raised at once, as the
same error the reward raises in-process. Needs httpx (the ``serve`` extra).
"""

from __future__ import annotations

import asyncio
import json
import math
import random
import threading
import time
import weakref
from typing import TYPE_CHECKING, Any

from rewardkit._errors import ConfigError, InfrastructureError, RewardError, ServiceError
from rewardkit._install import extra_hint
from rewardkit.rewards.base import AsyncReward, Reward, Scored
from rewardkit.rewards.inputs import Batch
from rewardkit.scoring.row_isolation import PartialScored

if TYPE_CHECKING:
    import httpx

ERROR_HEADER = "x-rewardkit-error"
RETRY_STATUSES = frozenset({429, 502, 503, 504})
SERVE_EXTRA = extra_hint("serve")


def _httpx() -> Any:
    try:
        import httpx
    except ImportError as exc:
        raise ConfigError(f"rk.RemoteReward needs httpx ({exc}): {SERVE_EXTRA}") from None
    return httpx


def _jsonable(value: Any) -> Any:
    if hasattr(value, "tolist"):  # numpy arrays and scalars, as datasets hand them over
        return value.tolist()
    if hasattr(value, "isoformat"):
        return value.isoformat()
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    raise TypeError(f"a value of type {type(value).__name__} cannot be sent as JSON")


class RemoteReward(Reward):
    """A reward served at ``url`` (``http://host:port``), called like any TRL reward function.

    ``token``: the service's bearer token. ``name``: the name TRL logs it under (default: the served
    reward's, asked of ``GET /health`` now). ``timeout``: seconds one try may take; ``connect_timeout``:
    seconds to connect; ``deadline``: seconds one call may spend, tries and waits included;
    ``max_tries``: tries per call. Picklable: a copy opens its own connections. A row the service could
    not score (its scoring raised there) has no value and status ``error``; ``last_errors`` says why.
    """

    _transient = ("_local", "_async_clients", "_lock")

    def __init__(
        self,
        url: str,
        *,
        token: str | None = None,
        name: str | None = None,
        timeout: float = 300.0,
        connect_timeout: float = 10.0,
        deadline: float = 900.0,
        max_tries: int = 8,
        backoff: float = 0.5,
        max_backoff: float = 30.0,
    ) -> None:
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise ConfigError(f"RemoteReward: url must be an http:// or https:// address, got {url!r}")
        if max_tries < 1 or timeout <= 0 or deadline <= 0:
            raise ConfigError("RemoteReward: max_tries must be >= 1, timeout and deadline > 0")
        _httpx()
        self.url = url.rstrip("/").removesuffix("/v1/score")
        self.token = token
        self.timeout = timeout
        self.connect_timeout = connect_timeout
        self.deadline = deadline
        self.max_tries = max_tries
        self.backoff = backoff
        self.max_backoff = max_backoff
        self._local: threading.local | None = None
        self._async_clients: weakref.WeakKeyDictionary[Any, Any] | None = None
        self._lock: threading.Lock | None = None
        self.last_tries = 0
        self.last_errors: dict[int, str] = {}
        super().__init__(name or str(self._request("GET", "/health", None)["reward"]))

    # -- the Reward contract ------------------------------------------------------------------------------

    def score(self, batch: Batch) -> Scored:
        scored = _scored(self._request("POST", "/v1/score", self._payload(batch)), len(batch), self.url)
        self.last_errors = dict(scored.errors)
        return scored

    def as_async(self) -> AsyncRemoteReward:
        """This reward as a coroutine function that awaits the service without a thread."""
        return AsyncRemoteReward(self)

    async def ascore(self, batch: Batch) -> Scored:
        """:meth:`score`, awaited on the running event loop."""
        data = await self._arequest("POST", "/v1/score", self._payload(batch))
        scored = _scored(data, len(batch), self.url)
        self.last_errors = dict(scored.errors)
        return scored

    def _log(self, batch: Batch, scored: Scored) -> None:
        """As in-process, and the rows the service could not score: ``<name>/service_error`` (why)."""
        super()._log(batch, scored)
        errors = getattr(scored, "errors", None)
        if errors and batch.log_extra is not None:
            batch.log_extra(f"{self.name}/service_error", [errors.get(i) for i in range(len(batch))])

    def close(self) -> None:
        local, self._local = self._local, None
        client = getattr(local, "client", None) if local is not None else None
        if client is not None:
            client.close()
        self._async_clients = None  # an async client belongs to its loop; dropped, it closes with it

    # -- transport ----------------------------------------------------------------------------------------

    def _payload(self, batch: Batch) -> bytes:
        prompts = batch.prompts if any(p is not None for p in batch.prompts) else None
        body = {"completions": batch.completions, "prompts": prompts, "columns": batch.columns}
        try:
            return json.dumps(body, default=_jsonable, ensure_ascii=False).encode()
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"RemoteReward {self.name!r}: the batch cannot be sent as JSON: {exc}") from None

    def _headers(self) -> dict[str, str]:
        headers = {"content-type": "application/json", "accept": "application/json"}
        if self.token:
            headers["authorization"] = f"Bearer {self.token}"
        return headers

    def _timeouts(self) -> Any:
        return _httpx().Timeout(self.timeout, connect=self.connect_timeout)

    def _client(self) -> httpx.Client:
        if self._local is None:
            self._local = threading.local()
        client: httpx.Client | None = getattr(self._local, "client", None)
        if client is None:
            client = _httpx().Client(timeout=self._timeouts(), headers=self._headers())
            self._local.client = client
        return client

    def _async_client(self) -> httpx.AsyncClient:
        loop = asyncio.get_running_loop()
        if self._lock is None:
            self._lock = threading.Lock()
        with self._lock:
            if self._async_clients is None:
                self._async_clients = weakref.WeakKeyDictionary()
            client: httpx.AsyncClient | None = self._async_clients.get(loop)
            if client is None:
                client = _httpx().AsyncClient(timeout=self._timeouts(), headers=self._headers())
                self._async_clients[loop] = client
        return client

    def _request(self, method: str, path: str, body: bytes | None) -> Any:
        httpx = _httpx()
        retry = _Retry(self, method, path)
        while True:
            try:
                response = self._client().request(method, self.url + path, content=body)
            except httpx.TransportError as exc:
                time.sleep(retry.after_error(exc))
                continue
            wait = retry.after_response(response)
            if wait is None:
                return response.json()
            time.sleep(wait)

    async def _arequest(self, method: str, path: str, body: bytes | None) -> Any:
        httpx = _httpx()
        retry = _Retry(self, method, path)
        while True:
            try:
                response = await self._async_client().request(method, self.url + path, content=body)
            except httpx.TransportError as exc:
                await asyncio.sleep(retry.after_error(exc))
                continue
            wait = retry.after_response(response)
            if wait is None:
                return response.json()
            await asyncio.sleep(wait)


class _Retry:
    """One call's tries: how long to wait before the next, or the error that ends the call."""

    def __init__(self, reward: RemoteReward, method: str, path: str) -> None:
        self.reward = reward
        self.where = f"{method} {reward.url}{path}"
        self.tries = 0
        self.ends = time.monotonic() + reward.deadline

    def _tried(self) -> None:
        self.tries += 1
        self.reward.last_tries = self.tries

    def _wait(self, last: str, hinted: float | None = None) -> float:
        pause = min(self.reward.max_backoff, self.reward.backoff * 2.0 ** (self.tries - 1))
        pause *= 0.5 + random.random() / 2  # jitter: clients retrying together do not come back together
        if hinted is not None:
            pause = max(pause, hinted)
        left = self.ends - time.monotonic()
        if self.tries >= self.reward.max_tries or pause >= left:
            raise ServiceError(
                f"{self.where}: no answer after {self.tries} {'try' if self.tries == 1 else 'tries'} "
                f"(last: {last}); is the reward service up and reachable?"
            )
        return pause

    def after_error(self, exc: Exception) -> float:
        self._tried()
        return self._wait(f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__)

    def after_response(self, response: httpx.Response) -> float | None:
        """None when the response is the answer; else seconds to wait before trying again (or raise)."""
        self._tried()
        status = response.status_code
        ours = ERROR_HEADER in response.headers
        if status == 200:
            return None
        detail = _detail(response)
        if response.headers.get(ERROR_HEADER) == "infrastructure_failure":
            raise InfrastructureError(f"{self.where}: {detail}")  # the run is broken: stop it, as in-process
        if status in RETRY_STATUSES or (status >= 500 and not ours):
            return self._wait(f"HTTP {status}: {detail}", _retry_after(response))
        message = f"{self.where} answered HTTP {status} ({response.headers.get(ERROR_HEADER, 'error')}): {detail}"
        if status == 500:
            raise RewardError(message)
        if status in (401, 403):
            raise ConfigError(message + "; pass the service's token as RemoteReward(url, token=...)")
        raise ConfigError(message)


def _detail(response: httpx.Response) -> str:
    try:
        data = response.json()
    except ValueError:
        return response.text[:300] or str(response.reason_phrase)
    if isinstance(data, dict) and "detail" in data:
        return str(data["detail"])
    return str(data)[:300]


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("retry-after")
    try:
        seconds = float(value) if value is not None else None
    except ValueError:
        return None
    return seconds if seconds is not None and math.isfinite(seconds) and seconds >= 0 else None


def _scored(data: Any, rows: int, url: str) -> PartialScored:
    try:
        scored = PartialScored(
            values=list(data["values"]),
            components={str(k): list(v) for k, v in data["components"].items()},
            statuses={str(k): list(v) for k, v in data["statuses"].items()},
            extracted={str(k): list(v) for k, v in data.get("extracted", {}).items()},
            errors={int(e["row"]): str(e["error"]) for e in data.get("errors", [])},
        )
    except (KeyError, TypeError, AttributeError) as exc:
        raise ServiceError(f"{url}/v1/score answered something that is not a rewardkit result ({exc!r})") from None
    if len(scored.values) != rows:
        raise ServiceError(f"{url}/v1/score answered {len(scored.values)} values for {rows} completions")
    return scored


class AsyncRemoteReward(AsyncReward):
    """``await reward(prompts=..., completions=..., **columns)``: the service called on the running loop."""

    reward: RemoteReward

    def __init__(self, reward: RemoteReward) -> None:
        super().__init__(reward)

    async def __call__(self, prompts: Any = None, completions: Any = None, **kwargs: Any) -> list[float | None]:
        batch = Batch.from_call(prompts, completions, kwargs)
        scored = await self.reward.ascore(batch)
        self.reward._log(batch, scored)
        return scored.values
