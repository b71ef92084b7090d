"""The judge tests start a real chat-completions server (Starlette + uvicorn); the judge needs httpx. Without
them the tests are left out (the run's header says so); in CI (CI=true) a missing part is a failure."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from rk_testing import IN_CI, require

MISSING = [m for m in ("httpx", "starlette", "uvicorn") if importlib.util.find_spec(m) is None]
if MISSING and not IN_CI:
    collect_ignore_glob = ["test_*.py"]


def pytest_report_header(config: pytest.Config) -> str | None:
    if MISSING:
        return f"tests/verifiers/judge left out: missing {', '.join(MISSING)}: pip install -e '.[judge,dev]'"
    return None


@pytest.fixture
def scripted() -> Iterator[Callable[..., Any]]:
    """``scripted(script=same_answer, delay=0)``: a running server with a scripted backend."""
    from judge_server import JudgeServer, ScriptedBackend, same_answer, serving

    from rewardkit.verifiers.judge.chat_client import forget_format_refusals

    stack: list[Any] = []

    def start(script: Callable[[list[dict[str, Any]]], str] | None = None, delay: float = 0.0) -> Any:
        context = serving(JudgeServer(ScriptedBackend(script or same_answer, delay)))
        stack.append(context)
        return context.__enter__()

    forget_format_refusals()
    try:
        yield start
    finally:
        for context in reversed(stack):
            context.__exit__(None, None, None)
        forget_format_refusals()


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory: pytest.TempPathFactory) -> str:
    ok = all(importlib.util.find_spec(m) is not None for m in ("torch", "transformers", "tokenizers"))
    require(ok, "the real-model judge tests need torch, transformers and tokenizers (the train extra)")
    from rewardkit.train.tiny_model import build_tiny_model

    return str(build_tiny_model(tmp_path_factory.mktemp("tiny-judge"), max_positions=2048, seed=0))
