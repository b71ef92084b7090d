"""Run the reward service under uvicorn: bound where the settings say, draining on SIGTERM.

On SIGTERM (or Ctrl-C) the service stops taking scoring requests at once (503 with ``Retry-After`` for
any that still arrive on an open connection), uvicorn closes its listening socket (new connections are
refused), the requests in flight are answered, the queue empties, and the process exits 0. A second
signal stops it without waiting; ``drain_timeout`` bounds the wait.
"""

from __future__ import annotations

import signal
import socket
from collections.abc import Callable
from types import FrameType

import uvicorn
from fastapi import FastAPI

from rewardkit.serve.service import RewardService


class DrainingServer(uvicorn.Server):
    """uvicorn's server, telling the service to refuse new work the moment a shutdown signal arrives."""

    def __init__(
        self, config: uvicorn.Config, service: RewardService, on_ready: Callable[[str], None] | None = None
    ) -> None:
        super().__init__(config)
        self.service = service
        self.on_ready = on_ready

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        self.service.start_draining()
        super().handle_exit(sig, frame)

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.on_ready is not None and self.started:
            self.on_ready(self.url())

    def url(self) -> str:
        """The address actually bound (the real port when the settings asked for port 0)."""
        for server in self.servers:
            for sock in server.sockets:
                host, port = sock.getsockname()[:2]
                return f"http://{f'[{host}]' if ':' in host else host}:{port}"
        return f"http://{self.config.host}:{self.config.port}"


def run_app(app: FastAPI, *, access_log: bool = False, on_ready: Callable[[str], None] | None = None) -> bool:
    """Serve ``app`` (from :func:`create_app`) until a shutdown signal, then drain; False if it never
    started (the address was taken, the app failed to start)."""
    service: RewardService = app.state.service
    settings = service.settings
    config = uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        log_level="warning",
        access_log=access_log,
        timeout_graceful_shutdown=int(settings.drain_timeout),
        timeout_keep_alive=30,
        lifespan="on",
    )
    server = DrainingServer(config, service, on_ready)
    # uvicorn re-raises the signal it caught once it has drained, under the handler found before it ran:
    # make that one a no-op, so a drained service exits 0 instead of dying of the signal.
    previous = {sig: signal.signal(sig, lambda *_: None) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        server.run()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return bool(server.started)
