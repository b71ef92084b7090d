"""Helpers for the reward-service tests: a real server on loopback (in a thread, or a `rewardkit serve`
process), a verifier that fails the way infrastructure does, and slow rewards for load and drain tests.

Module-level functions (not closures): a `rewardkit serve` process builds its reward from them by
``"serve_helpers:<name>"`` with this folder on PYTHONPATH.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import uvicorn

import rewardkit as rk
from rewardkit.serve.app import create_app
from rewardkit.serve.server import DrainingServer
from rewardkit.serve.settings import ServeSettings
from rewardkit.verifiers.base import Verifier
from rewardkit.verifiers.verdict import Verdict

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
TOKEN = "serve-test-token-0123456789abcdef"


@contextlib.contextmanager
def running(reward: rk.Reward, settings: ServeSettings | None = None) -> Iterator[str]:
    """``create_app(reward, settings)`` served by uvicorn on 127.0.0.1 (a free port) in a thread; the URL."""
    with running_app(create_app(reward, settings or ServeSettings(port=0))) as url:
        yield url


@contextlib.contextmanager
def running_app(app: Any) -> Iterator[str]:
    """An app from ``create_app`` served by uvicorn in a thread, where its settings say; the URL."""
    settings = app.state.service.settings
    urls: list[str] = []
    config = uvicorn.Config(app, host=settings.host, port=settings.port, log_level="warning", lifespan="on")
    server = DrainingServer(config, app.state.service, urls.append)
    thread = threading.Thread(target=server.run, name="test-reward-server", daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not urls and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert urls, "the test server did not start"
    try:
        yield urls[0]
    finally:
        server.should_exit = True
        thread.join(60)
        assert not thread.is_alive(), "the test server did not stop"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class ServeProcess:
    """A ``rewardkit serve`` child process; ``url`` once it says it listens."""

    def __init__(self, *args: str, env: dict[str, str] | None = None, timeout: float = 60) -> None:
        full_env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")])}
        full_env.update(env or {})
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "rewardkit.cli", "serve", *args],
            stderr=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            text=True,
            env=full_env,
            cwd=ROOT,
        )
        self.lines: list[str] = []
        self.url = self._wait_for_url(timeout)

    def _wait_for_url(self, timeout: float) -> str:
        found: list[str] = []
        ready = threading.Event()

        def read() -> None:
            assert self.proc.stderr is not None
            for line in self.proc.stderr:
                self.lines.append(line)
                match = re.search(r" on (http://\S+?)[ ;]", line)
                if match and not found:
                    found.append(match.group(1))
                    ready.set()
            ready.set()

        threading.Thread(target=read, daemon=True).start()
        ready.wait(timeout)
        if not found:
            self.kill()
            raise AssertionError("rewardkit serve did not start:\n" + "".join(self.lines))
        return found[0]

    def terminate(self) -> None:
        self.proc.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(30)

    def wait(self, timeout: float = 60) -> int:
        return self.proc.wait(timeout)

    def output(self) -> str:
        return "".join(self.lines)


class InfraFailingVerifier(Verifier):
    """Exact match against the reference, failing as infrastructure does: a completion saying
    ``SANDBOX_DOWN`` gets a ``sandbox_error`` verdict, one saying ``VERIFIER_BUG`` makes verify raise."""

    def _verify(self, completion: Any, reference: Any, **context: Any) -> Verdict:
        text = str(completion)
        if "VERIFIER_BUG" in text:
            raise RuntimeError("the verifier's own code broke")
        if "SANDBOX_DOWN" in text:
            return Verdict.fail("sandbox_error", reason="the engine is gone")
        hit = text.strip() == str(reference).strip()
        return Verdict(1.0 if hit else 0.0, hit, "ok", text.strip())


class ServeTestPlugin:
    @rk.hookimpl
    def register_verifiers(self, register: Any) -> None:
        register("infra_failing", InfraFailingVerifier)


def slow_length(prompts: Any, completions: Any, **kwargs: Any) -> list[float]:
    """len(completion) / 100 after a pause: ``delay`` column (seconds, the call's largest) or 0.2 s."""
    delays = [float(d) for d in kwargs.get("delay", []) if d is not None]
    time.sleep(max(delays, default=0.2))
    return [len(rk.completion_text(c)) / 100 for c in completions]


def fragile_length(prompts: Any, completions: Any, **kwargs: Any) -> list[float]:
    """len(completion) / 100; the reward's own code raises on a batch holding a completion ``REWARD_BUG``."""
    texts = [rk.completion_text(c) for c in completions]
    if "REWARD_BUG" in texts:
        raise ValueError("fragile_length cannot score REWARD_BUG")
    return [len(t) / 100 for t in texts]
