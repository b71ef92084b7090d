"""A real OpenAI-compatible ``/v1/chat/completions`` server on loopback for the judge tests.

Starlette served by uvicorn in a thread on 127.0.0.1 (a free port). Two backends:

* :class:`TinyModelBackend` generates with a real (tiny, locally built, random) transformers model. With a
  ``response_format`` of type ``json_schema`` it decodes under the verdict schema, as vLLM's and SGLang's
  guided decoding does: the JSON scaffolding is forced, the model's logits choose between the allowed
  verdict strings, and the reason is the model's greedy text restricted to safe characters. Without it the
  model's free text comes back. ``usage`` counts the real tokens.
* :class:`ScriptedBackend`: a function of the request's messages writes the reply (the test decides).

Failure modes are queued per server (:meth:`JudgeServer.fail_next`): ``500``, ``429`` (with
``Retry-After``), ``slow`` (answers after ``delay`` seconds), ``malformed`` (a 200 whose body is not JSON);
``refuse_response_format`` answers 400 to any request that carries one. The server records every request
body and the most requests it had in flight at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

SAFE_REASON_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 "
REASON_CHARS = 24


@dataclass
class Generated:
    text: str
    prompt_tokens: int
    completion_tokens: int


class ScriptedBackend:
    """Replies with ``script(messages)``; usage counts characters (one token each, like the char tokenizer)."""

    def __init__(self, script: Callable[[list[dict[str, Any]]], str], delay: float = 0.0) -> None:
        self.script = script
        self.delay = delay

    def generate(self, messages: list[dict[str, Any]], max_tokens: int, response_format: Any) -> Generated:
        if self.delay:
            time.sleep(self.delay)
        text = self.script(messages)
        return Generated(text, sum(len(m["content"]) for m in messages), len(text))


def verdict_json(verdict: str, reason: str = "scripted") -> str:
    return json.dumps({"verdict": verdict, "reason": reason})


def block(content: str, tag: str) -> str:
    """The text of one data block of a judge prompt."""
    found = re.search(rf"<{tag}>\n(.*)\n</{tag}>", content, re.DOTALL)
    assert found, f"no <{tag}> block in {content!r}"
    return found.group(1)


def user_message(messages: list[dict[str, Any]]) -> str:
    return next(m["content"] for m in messages if m["role"] == "user")


def same_answer(messages: list[dict[str, Any]]) -> str:
    """A scripted judge: correct when the candidate block holds the reference (case and spaces aside)."""
    content = user_message(messages)
    reference = block(content, "reference").strip().lower()
    candidate = block(content, "candidate").strip().lower()
    return verdict_json("correct" if reference and reference in candidate else "incorrect")


class TinyModelBackend:
    """Greedy generation with a tiny Llama and its character tokenizer (``build_tiny_model``)."""

    def __init__(self, path: str) -> None:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        self.torch = torch
        self.tokenizer = AutoTokenizer.from_pretrained(path)
        self.model = AutoModelForCausalLM.from_pretrained(path).eval()
        self.lock = threading.Lock()  # one generation at a time: the model is not shared across threads
        self.max_positions = self.model.config.max_position_embeddings

    def _ids(self, text: str) -> list[int]:
        return list(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def _prompt_ids(self, messages: list[dict[str, Any]], room: int) -> list[int]:
        text = self.tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
        ids = self._ids(text)
        return ids[-(self.max_positions - room) :]  # the tail: a model of 2048 positions reads what fits

    def _step(self, ids: list[int], past: Any) -> tuple[Any, Any]:
        torch = self.torch
        with torch.no_grad():
            out = self.model(input_ids=torch.tensor([ids]), past_key_values=past, use_cache=True)
        return out.logits[0, -1], out.past_key_values

    def generate(self, messages: list[dict[str, Any]], max_tokens: int, response_format: Any) -> Generated:
        with self.lock:
            if isinstance(response_format, dict) and response_format.get("type") == "json_schema":
                return self._guided(messages)
            return self._free(messages, max_tokens)

    def _free(self, messages: list[dict[str, Any]], max_tokens: int) -> Generated:
        prompt = self._prompt_ids(messages, max_tokens + 1)
        logits, past = self._step(prompt, None)
        out: list[int] = []
        for _ in range(max_tokens):
            token = int(logits.argmax())
            if token == self.tokenizer.eos_token_id:
                break
            out.append(token)
            logits, past = self._step([token], past)
        return Generated(self.tokenizer.decode(out, skip_special_tokens=True), len(prompt), len(out))

    def _guided(self, messages: list[dict[str, Any]]) -> Generated:
        """Decode under the verdict schema: forced scaffolding, a model-chosen verdict, a safe-character reason."""
        prompt = self._prompt_ids(messages, 128)
        generated: list[int] = []
        logits, past = self._step(prompt, None)

        def force(text: str) -> None:
            nonlocal logits, past
            for token in self._ids(text):
                generated.append(token)
                logits, past = self._step([token], past)

        force('{"verdict": "')
        # The allowed verdict strings differ at their first character: the model's logits pick one.
        first = {v: self._ids(v)[0] for v in ("correct", "incorrect")}
        verdict = max(first, key=lambda v: float(logits[first[v]]))
        force(verdict + '", "reason": "')
        allowed = sorted({i for ch in SAFE_REASON_CHARS for i in self._ids(ch)})
        mask = self.torch.full_like(logits, float("-inf"))
        reason: list[int] = []
        for _ in range(REASON_CHARS):
            mask.fill_(float("-inf"))
            mask[allowed] = 0.0
            token = int((logits + mask).argmax())
            reason.append(token)
            generated.append(token)
            logits, past = self._step([token], past)
        force('"}')
        return Generated(self.tokenizer.decode(generated, skip_special_tokens=True), len(prompt), len(generated))


@dataclass
class Failure:
    kind: str
    retry_after: str | None = None
    delay: float = 0.0


@dataclass
class ServerLog:
    """What the server saw: request bodies in arrival order, their arrival times, the most in flight at once."""

    bodies: list[dict[str, Any]] = field(default_factory=list)
    arrivals: list[float] = field(default_factory=list)
    max_in_flight: int = 0

    @property
    def requests(self) -> int:
        return len(self.bodies)


class JudgeServer:
    """The app and its state; :func:`serving` runs it."""

    def __init__(self, backend: Any, *, model: str = "tiny-judge") -> None:
        self.backend = backend
        self.model = model
        self.log = ServerLog()
        self.refuse_response_format = False
        self._failures: deque[Failure] = deque()
        self._lock = threading.Lock()
        self._in_flight = 0
        self.url = ""

    @property
    def base_url(self) -> str:
        return self.url + "/v1"

    def fail_next(self, kind: str, times: int = 1, *, retry_after: str | None = None, delay: float = 0.0) -> None:
        """Answer the next ``times`` requests with a failure: ``500``, ``429``, ``slow``, ``malformed``."""
        assert kind in ("500", "429", "slow", "malformed"), kind
        with self._lock:
            self._failures.extend(Failure(kind, retry_after, delay) for _ in range(times))

    def app(self) -> Starlette:
        return Starlette(routes=[Route("/v1/chat/completions", self._complete, methods=["POST"])])

    async def _complete(self, request: Request) -> Response:
        body = await request.json()
        with self._lock:
            self.log.bodies.append(body)
            self.log.arrivals.append(time.monotonic())
            self._in_flight += 1
            self.log.max_in_flight = max(self.log.max_in_flight, self._in_flight)
            failure = self._failures.popleft() if self._failures else None
        try:
            return await self._answer(body, failure)
        finally:
            with self._lock:
                self._in_flight -= 1

    async def _answer(self, body: dict[str, Any], failure: Failure | None) -> Response:
        if failure is not None:
            if failure.kind == "500":
                return PlainTextResponse("internal error", status_code=500)
            if failure.kind == "429":
                headers = {"retry-after": failure.retry_after} if failure.retry_after is not None else {}
                return JSONResponse({"error": {"message": "rate limited"}}, status_code=429, headers=headers)
            if failure.kind == "malformed":
                return PlainTextResponse('{"choices": [', status_code=200, media_type="application/json")
            await asyncio.sleep(failure.delay)  # slow: the client has given up on this try by now
        if self.refuse_response_format and "response_format" in body:
            return JSONResponse(
                {"error": {"message": "response_format is not supported by this server"}}, status_code=400
            )
        generated = await run_in_threadpool(
            self.backend.generate, body["messages"], int(body.get("max_tokens", 64)), body.get("response_format")
        )
        return JSONResponse(
            {
                "id": f"chatcmpl-{self.log.requests}",
                "object": "chat.completion",
                "model": self.model,
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": generated.text},
                        "finish_reason": "stop",
                    }
                ],
                "usage": {
                    "prompt_tokens": generated.prompt_tokens,
                    "completion_tokens": generated.completion_tokens,
                    "total_tokens": generated.prompt_tokens + generated.completion_tokens,
                },
            }
        )


@contextlib.contextmanager
def serving(server: JudgeServer) -> Iterator[JudgeServer]:
    """Run ``server`` on 127.0.0.1 at a free port in a thread; stopped when the block ends."""
    config = uvicorn.Config(server.app(), host="127.0.0.1", port=0, log_level="warning", lifespan="off")
    uv = uvicorn.Server(config)
    thread = threading.Thread(target=uv.run, name="test-judge-server", daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not uv.started and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert uv.started, "the judge test server did not start"
    port = uv.servers[0].sockets[0].getsockname()[1]
    server.url = f"http://127.0.0.1:{port}"
    try:
        yield server
    finally:
        uv.should_exit = True
        thread.join(30)
        assert not thread.is_alive(), "the judge test server did not stop"
