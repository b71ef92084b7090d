"""``create_app(reward, settings)``: the reward service's ASGI app (FastAPI), built by a factory, never at
import time. The reward is fixed here: no request loads code or a spec.

Routes: ``POST /v1/score`` (native batch), ``POST /get_reward`` (OpenRLHF), ``POST /reward`` (slime),
``POST /verify`` (NeMo-Gym), ``GET /health``, ``GET /metrics`` (Prometheus text); FastAPI serves the
OpenAPI description at ``/openapi.json`` and ``/docs``.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import PlainTextResponse, Response

from rewardkit.rewards.base import Reward
from rewardkit.serve.guards import ERROR_HEADER, BearerAuth, BodyLimit, error_body
from rewardkit.serve.metrics import MetricsMiddleware
from rewardkit.serve.service import Refusal, RewardService
from rewardkit.serve.settings import ServeSettings
from rewardkit.serve.wire_native import HealthResponse, ScoreRequest, ScoreResponse, native_batch, native_response
from rewardkit.serve.wire_nemo_gym import VerifyRequest, VerifyResponse, verify_batch, verify_response
from rewardkit.serve.wire_openrlhf import OpenRLHFRequest, OpenRLHFResponse, openrlhf_batch, openrlhf_response
from rewardkit.serve.wire_slime import SlimeRequest, SlimeResponse, slime_batch, slime_response

PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8"


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("rewardkit")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown"


def _json(content: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    body = json.dumps(content, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode()
    return Response(body, status_code=status, headers=headers, media_type="application/json")


def _field(loc: tuple[Any, ...] | list[Any]) -> str:
    parts = [str(p) for p in loc if p != "body"]
    out = ""
    for part in parts:
        out += f"[{part}]" if part.isdigit() else (f".{part}" if out else part)
    return out or "body"


async def _invalid_request(request: Request, exc: RequestValidationError) -> Response:
    errors = exc.errors()
    bad_json = [e for e in errors if e.get("type") == "json_invalid"]
    if bad_json:
        ctx = bad_json[0].get("ctx") or {}
        detail = f"the body is not valid JSON: {ctx.get('error', bad_json[0].get('msg'))}"
        where = bad_json[0].get("loc", ())
        if len(where) > 1:
            detail += f" (at character {where[1]})"
        return _json(error_body("invalid_json", detail), 400, {ERROR_HEADER: "invalid_json"})
    fields = [{"field": _field(e.get("loc", ())), "message": str(e.get("msg"))} for e in errors]
    first = fields[0] if fields else {"field": "body", "message": "invalid"}
    detail = f"{first['field']}: {first['message']}" + (f" (and {len(fields) - 1} more)" if len(fields) > 1 else "")
    return _json(error_body("invalid_request", detail, errors=fields), 422, {ERROR_HEADER: "invalid_request"})


async def _service_error(request: Request, exc: Refusal) -> Response:
    headers = {ERROR_HEADER: exc.code, **exc.headers}
    return _json(error_body(exc.code, exc.detail, **exc.extra), exc.status, headers)


def create_app(reward: Reward, settings: ServeSettings | None = None, *, close_reward: bool = False) -> FastAPI:
    """The service for ``reward``; ``close_reward`` closes the reward when the app shuts down (after the
    in-flight requests are answered and the queue is empty)."""
    settings = settings or ServeSettings()
    service = RewardService(reward, settings)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        yield
        service.close(timeout=settings.drain_timeout)
        if close_reward:
            reward.close()

    version = _version()
    app = FastAPI(
        title=f"rewardkit: {reward.name}",
        version=version,
        description="A rewardkit reward over HTTP (docs/serving.md).",
        lifespan=lifespan,
    )
    app.state.service = service
    app.add_exception_handler(RequestValidationError, _invalid_request)  # type: ignore[arg-type]
    app.add_exception_handler(Refusal, _service_error)  # type: ignore[arg-type]

    @app.post("/v1/score", response_model=ScoreResponse, tags=["score"])
    async def score(body: ScoreRequest) -> Response:
        """Score a batch: completions, prompts and dataset columns in; values, components, statuses out."""
        service.check_rows(len(body.completions), "completions")
        scored = await service.score(native_batch(body), "/v1/score")
        return _json(native_response(service.name, scored))

    @app.post("/get_reward", response_model=OpenRLHFResponse, tags=["trainers"])
    async def get_reward(body: OpenRLHFRequest) -> Response:
        """OpenRLHF's --remote_rm_url: queries (prompt + response), prompts and labels in."""
        service.check_rows(len(body.query), "query")
        scored = await service.score(openrlhf_batch(body), "/get_reward")
        return _json(openrlhf_response(scored, settings.none_reward))

    @app.post("/reward", response_model=SlimeResponse, tags=["trainers"])
    async def slime_reward(body: SlimeRequest) -> Response:
        """slime's --rm-url: one sample (prompt, response, label) in; a --reward-key dict out."""
        scored = await service.score(slime_batch(body), "/reward")
        return _json(slime_response(scored, settings.none_reward))

    @app.post("/verify", response_model=VerifyResponse, tags=["trainers"])
    async def verify(body: VerifyRequest) -> Response:
        """NeMo-Gym's resources-server verify: the request echoed back with its reward."""
        scored = await service.score(verify_batch(body), "/verify")
        return _json(verify_response(body.model_dump(), scored))

    @app.get("/health", response_model=HealthResponse, tags=["service"])
    async def health() -> Response:
        """Liveness and the reward's name (no token needed); 503 while draining."""
        content = {
            "status": "draining" if service.draining else "ok",
            "reward": service.name,
            "version": version,
            "auth": settings.auth,
            "max_rows": settings.max_rows,
            "max_body_bytes": settings.max_body_bytes,
        }
        return _json(content, 503 if service.draining else 200)

    @app.get("/metrics", response_class=PlainTextResponse, tags=["service"])
    async def metrics() -> Response:
        """Prometheus text: requests, rows, latency, statuses, in-flight requests and queue depth."""
        return Response(service.metrics.render(), media_type=PROMETHEUS_TEXT)

    # Outermost first at request time: metrics see every answer, then the token, then the body limit.
    app.add_middleware(BodyLimit, max_bytes=settings.max_body_bytes)
    if settings.token is not None:
        app.add_middleware(BearerAuth, token=settings.token)
    app.add_middleware(MetricsMiddleware, metrics=service.metrics)
    return app
