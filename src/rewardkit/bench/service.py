"""``rewardkit bench --only service``: the reward service on loopback against in-process scoring.

A ``rewardkit serve`` process (as users run it) scores a math reward's rows sent as requests of 256 rows
(one at a time, as an in-process loop calls the reward), of 16 rows (16 in flight) and of 1 row (256 in
flight: a GRPO step arriving as one request per sample), and 1-row requests sent one at a time; then the
same two 1-row variants for a multiple-choice reward, whose verification is cheap, so what merging saves
(round trips, pool hand-offs) is not hidden behind the math workers' CPU. Baselines from the same run: the
reward called in this process on 256-row batches, and the one-at-a-time 1-row requests. Each variant gets
fresh rows (the service remembers verdicts it gave), drawn alike. The load comes from aiohttp (httpx's
pool slows down past a few dozen connections in flight, which would measure the client).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from rewardkit.bench.runs import Row, Sizes, skipped
from rewardkit.bench.workloads import math_rows, mcq_rows

SPEC: dict[str, Any] = {
    "name": "math_service_bench",
    "combine": "sum",
    "terms": [
        {"reward": "math_accuracy", "params": {"extraction": "strict"}},
        {"reward": "tag_format", "weight": 0.5, "params": {"tags": ["think", "answer"]}},
    ],
}
MCQ_SPEC: dict[str, Any] = {"reward": "mcq_accuracy"}
TARGET_LARGE, TARGET_BATCHED = ">= 0.85x", ">= 5x"


def _rows(n: int, seed: int) -> list[dict[str, Any]]:
    return math_rows(n // 2, seed, False) + math_rows(n - n // 2, seed + 1, True)


def _body(rows: list[dict[str, Any]]) -> bytes:
    columns: dict[str, list[Any]] = {"answer": [r["answer"] for r in rows]}
    if "options" in rows[0]:
        columns["options"] = [r["options"] for r in rows]
    return json.dumps({"completions": [r["completion"] for r in rows], "columns": columns}).encode()


class _Server:
    """A ``rewardkit serve`` child on 127.0.0.1 (a free port), stopped with SIGTERM."""

    def __init__(self, spec_path: Path) -> None:
        os.environ.setdefault("PYTHONUNBUFFERED", "1")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "rewardkit.cli", "serve", "--reward", str(spec_path), "--port", "0"],
            stderr=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            text=True,
        )
        self.url = ""
        found = threading.Event()

        def read() -> None:
            assert self.proc.stderr is not None
            for line in self.proc.stderr:
                match = re.search(r" on (http://\S+?)[ ;]", line)
                if match and not self.url:
                    self.url = match.group(1)
                    found.set()
            found.set()

        threading.Thread(target=read, daemon=True).start()
        if not found.wait(120) or not self.url:
            self.stop()
            raise RuntimeError("rewardkit serve did not start")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.proc.kill()


async def _load(url: str, bodies: list[bytes], in_flight: int) -> tuple[float, list[float]]:
    """Send every body, ``in_flight`` at a time; wall seconds and each request's latency."""
    import aiohttp

    latencies: list[float] = []
    pending = list(reversed(bodies))
    headers = {"content-type": "application/json"}
    connector = aiohttp.TCPConnector(limit=in_flight)
    async with aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=600)) as session:

        async def worker() -> None:
            while pending:
                body = pending.pop()
                sent = time.perf_counter()
                async with session.post(url + "/v1/score", data=body, headers=headers) as response:
                    response.raise_for_status()
                    await response.read()
                latencies.append(time.perf_counter() - sent)

        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(in_flight)))
        return time.perf_counter() - started, latencies


def _percentile(values: list[float], q: int) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1] if len(values) > 1 else values[0]


def _latency(latencies: list[float]) -> str:
    return f"p50 {_percentile(latencies, 50) * 1000:.1f} ms, p99 {_percentile(latencies, 99) * 1000:.1f} ms"


def _in_process(
    spec: dict[str, Any], batches: list[list[dict[str, Any]]], alone: list[dict[str, Any]], warm: list[dict[str, Any]]
) -> tuple[float, float]:
    """Rows/s of the reward called in this process: on 256-row calls (best over ``batches``, each a fresh
    set of rows) and on 1-row calls one at a time (``alone``)."""
    from rewardkit.rewards.api import build_reward

    def call(reward: Any, chunk: list[dict[str, Any]]) -> None:
        columns = {k: [r[k] for r in chunk] for k in ("answer", "options") if k in chunk[0]}
        reward(completions=[r["completion"] for r in chunk], **columns)

    with build_reward(spec) as reward:
        for _ in range(3):  # every verifier worker up and used once, as the server's are after its warm-up
            call(reward, warm)
        best = 0.0
        for rows in batches:
            started = time.perf_counter()
            for i in range(0, len(rows), 256):
                call(reward, rows[i : i + 256])
            best = max(best, len(rows) / (time.perf_counter() - started))
        started = time.perf_counter()
        for row in alone:
            call(reward, [row])
        return best, len(alone) / (time.perf_counter() - started)


def _served(
    spec: dict[str, Any], variants: list[tuple[str, int, int, list[dict[str, Any]]]], warm: list[dict[str, Any]]
) -> dict[str, tuple[float, list[float]]]:
    """For each (name, rows per request, requests in flight, rows): rows/s and latencies, from one server."""
    with tempfile.TemporaryDirectory() as tmp:
        spec_path = Path(tmp) / "spec.json"
        spec_path.write_text(json.dumps(spec))
        server = _Server(spec_path)
        try:
            for _ in range(3):  # the server's pools start outside the timing
                asyncio.run(_load(server.url, [_body(warm[i : i + 8]) for i in range(0, len(warm), 8)], 4))
            timed = {}
            for name, size, in_flight, rows in variants:
                bodies = [_body(rows[i : i + size]) for i in range(0, len(rows), size)]
                seconds, latencies = asyncio.run(_load(server.url, bodies, in_flight))
                timed[name] = (len(rows) / seconds, latencies)
            return timed
        finally:
            server.stop()


def service_bench(sizes: Sizes) -> list[Row]:
    """The service's rows/s and latency per request size, as ratios against same-run baselines."""
    names = (
        "service: 256-row requests",
        "service: 16-row requests",
        "service: 1-row requests batched",
        "service: 1-row requests batched, mcq",
    )
    try:
        import aiohttp  # noqa: F401
        import fastapi  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as exc:
        why = f"the serve extra or aiohttp is missing ({exc}); pip install -e '.[serve,dev]'"
        return [skipped(names[0], TARGET_LARGE, why), skipped(names[2], TARGET_BATCHED, why)]
    n = sizes.service_rows
    alone = max(64, n // 4)
    batches = [_rows(n, 100 + 10 * r) for r in range(sizes.repeats)]
    in_process, in_process_alone = _in_process(SPEC, batches, _rows(alone, 900), _rows(256, 1))
    variants = [(f"256 #{r}", 256, 1, rows) for r, rows in enumerate(batches)]  # rows this server has not seen
    math = _served(
        SPEC,
        [
            *variants,
            ("16", 16, 16, _rows(n, 300)),
            ("1 batched", 1, 256, _rows(n, 500)),
            ("1 alone", 1, 1, _rows(alone, 700)),
        ],
        _rows(256, 2),
    )
    best = max((math[name] for name, *_ in variants), key=lambda timed: timed[0])
    math["256"] = best
    mcq = _served(
        MCQ_SPEC,
        [("1 batched", 1, 256, mcq_rows(n, 11)), ("1 alone", 1, 1, mcq_rows(alone, 13))],
        mcq_rows(64, 3),
    )
    rate = {k: v[0] for k, v in math.items()}
    mcq_rate = {k: v[0] for k, v in mcq.items()}
    setup = f"math_accuracy (strict, default workers) + tag_format, {n} rows per variant ({alone} one at a time)"
    return [
        Row(
            names[0],
            "in-process reward, 256-row calls",
            in_process,
            rate["256"],
            "rows/s",
            TARGET_LARGE,
            rate["256"] >= 0.85 * in_process,
            f"one request in flight, best of {sizes.repeats} on fresh rows as the baseline; "
            f"{_latency(math['256'][1])} per request; {setup}",
        ),
        Row(
            names[1],
            "in-process reward, 256-row calls",
            in_process,
            rate["16"],
            "rows/s",
            "-",
            None,
            f"16 in flight; {_latency(math['16'][1])} per request",
        ),
        Row(
            names[2],
            "1-row requests one at a time",
            rate["1 alone"],
            rate["1 batched"],
            "rows/s",
            TARGET_BATCHED,
            rate["1 batched"] >= 5 * rate["1 alone"],
            f"256 in flight, merged by the service: {_latency(math['1 batched'][1])}; one at a time: "
            f"{_latency(math['1 alone'][1])}; batched vs in-process 256-row calls: "
            f"{rate['1 batched'] / in_process:.2f}x. The ceiling on this machine: in-process 256-row calls vs "
            f"1-row calls one at a time are {in_process / in_process_alone:.2f}x",
        ),
        Row(
            names[3],
            "1-row requests one at a time",
            mcq_rate["1 alone"],
            mcq_rate["1 batched"],
            "rows/s",
            "-",
            None,
            f"mcq_accuracy on chain-of-thought answers (verification ~0.05 ms a row): what is left is HTTP's own "
            f"cost per request, merged or not: 256 in flight {_latency(mcq['1 batched'][1])}; one at a time "
            f"{_latency(mcq['1 alone'][1])}",
        ),
    ]
