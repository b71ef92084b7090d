"""ASGI middleware in front of the routes: the bearer token and the body-size limit, and the error body
every refusal of the service shares (``{"error": code, "detail": message}`` with an ``X-Rewardkit-Error``
header, so a client can tell the service's own answers from a proxy's)."""

from __future__ import annotations

import hmac
import json
from typing import Any
from urllib.parse import parse_qs

from rewardkit.serve.metrics import ASGIApp, Message, Receive, Scope, Send

ERROR_HEADER = "x-rewardkit-error"
# Open without a token: liveness probes and the API's own description (no reward is scored there).
PUBLIC_PATHS = frozenset({"/health", "/docs", "/docs/oauth2-redirect", "/redoc", "/openapi.json"})


def error_body(code: str, detail: str, **extra: Any) -> dict[str, Any]:
    return {"error": code, "detail": detail, **extra}


async def send_error(
    send: Send, status: int, code: str, detail: str, headers: dict[str, str] | None = None, **extra: Any
) -> None:
    """Answer a request with the service's error body, from middleware (outside FastAPI)."""
    body = json.dumps(error_body(code, detail, **extra)).encode()
    raw = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (ERROR_HEADER.encode(), code.encode()),
    ]
    raw += [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body})


def _path(scope: Scope) -> str:
    path: str = scope.get("path", "")
    root: str = scope.get("root_path", "")
    if root and path.startswith(root):
        path = path[len(root) :] or "/"
    return path


class BearerAuth:
    """Refuse (401) every request but the public paths unless it carries ``Authorization: Bearer <token>``
    (or ``?token=<token>`` in its URL, for trainers whose HTTP client sends no headers: OpenRLHF, slime);
    the token is compared in constant time."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.token = token.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or _path(scope) in PUBLIC_PATHS:
            await self.app(scope, receive, send)
            return
        given = b""
        for name, value in scope.get("headers", []):
            if name == b"authorization":
                scheme, _, rest = value.partition(b" ")
                if scheme.lower() == b"bearer":
                    given = rest.strip()
                break
        if not given and scope.get("query_string"):
            tokens = parse_qs(scope["query_string"].decode("latin-1")).get("token", [])
            given = tokens[0].encode() if len(tokens) == 1 else b""
        if not hmac.compare_digest(given, self.token):
            await send_error(
                send,
                401,
                "unauthorized",
                "this reward service needs the header 'Authorization: Bearer <token>'"
                + (" (the token given is not the service's)" if given else ""),
                {"WWW-Authenticate": 'Bearer realm="rewardkit"'},
            )
            return
        await self.app(scope, receive, send)


class BodyLimit:
    """Refuse (413) a request body over ``max_bytes``, by its Content-Length or while it streams in; the
    body is read here in full and handed on, so no route sees part of one."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") in ("GET", "HEAD", "OPTIONS"):
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", []):
            if name == b"content-length" and value.isdigit() and int(value) > self.max_bytes:
                await self._too_large(send, int(value))
                return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                await self._too_large(send, None)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _too_large(self, send: Send, length: int | None) -> None:
        size = f"{length} bytes" if length is not None else "more than that"
        await send_error(
            send,
            413,
            "body_too_large",
            f"the request body is {size}; this service takes at most {self.max_bytes} bytes (--max-body-bytes): "
            f"send fewer rows per request",
            {"Connection": "close"},
        )
