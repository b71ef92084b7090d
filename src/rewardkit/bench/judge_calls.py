"""``rewardkit bench --only judge``: judged rows per second, with concurrency and from the disk cache.

A chat-completions server on 127.0.0.1 (stdlib ``ThreadingHTTPServer``) answers every request after a fixed
delay, as a served judge model would after its decoding time, with a verdict in the judge's JSON. The judge
verifier scores the same rows three ways in one run: one call at a time (the baseline), ``max_concurrency``
8 in flight, and again from its sqlite cache (no call). The delay stands in for the model: what is measured is
rewardkit's client (limits, retries, parse, cache), not a model's speed.
"""

from __future__ import annotations

import json
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from rewardkit.bench.runs import Row, Sizes

DELAY_S = 0.02
CONCURRENCY = 8
TARGET_CONCURRENT, TARGET_CACHE_RATE = ">= 4x", ">= 10,000 rows/s"


class _Judge(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
        time.sleep(DELAY_S)
        content = body["messages"][-1]["content"]
        verdict = "correct" if "<candidate>\n42\n</candidate>" in content else "incorrect"
        reply = {
            "choices": [{"message": {"role": "assistant", "content": json.dumps({"verdict": verdict, "reason": "-"})}}],
            "usage": {"prompt_tokens": len(content) // 4, "completion_tokens": 12},
        }
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass


def _rows(n: int) -> tuple[list[str], list[str], list[dict[str, Any]]]:
    """Distinct rows (each its own question, so neither the cache nor the reward's memo merges two of them)."""
    completions = [str(42 if i % 2 == 0 else 40 + i % 7) for i in range(n)]
    return completions, ["42"] * n, [{"question": f"Question {i}: what is 6 times 7?"} for i in range(n)]


def judge_bench(sizes: Sizes) -> list[Row]:
    """Sequential calls vs ``max_concurrency`` 8 vs the cache, on the same rows against the same server."""
    from rewardkit.verifiers.lookup import get_verifier

    n = max(32, sizes.service_rows // 4)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Judge)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    completions, references, contexts = _rows(n)
    try:
        with get_verifier("judge", base_url=base_url, model="bench", max_concurrency=1) as one:
            started = time.perf_counter()
            sequential = [one.verify(c, r, **x) for c, r, x in zip(completions, references, contexts, strict=True)]
            sequential_s = time.perf_counter() - started
        with tempfile.TemporaryDirectory() as cache_dir:
            with get_verifier(
                "judge", base_url=base_url, model="bench", max_concurrency=CONCURRENCY, cache_dir=cache_dir
            ) as many:
                started = time.perf_counter()
                concurrent = many.verify_batch(completions, references, contexts)
                concurrent_s = time.perf_counter() - started
                repeats = max(1, 20_000 // n)
                started = time.perf_counter()
                for _ in range(repeats):
                    cached = many.verify_batch(completions, references, contexts)
                cached_s = time.perf_counter() - started
    finally:
        server.shutdown()
        server.server_close()
    agree = all(a.score == b.score == c.score for a, b, c in zip(sequential, concurrent, cached, strict=True))
    hits = all(v.details.get("cached") for v in cached)
    sequential_rate, concurrent_rate = n / sequential_s, n / concurrent_s
    cache_rate = n * repeats / cached_s
    return [
        Row(
            "judge: max_concurrency 8",
            "one call at a time",
            sequential_rate,
            concurrent_rate,
            "rows/s",
            TARGET_CONCURRENT,
            concurrent_rate >= 4 * sequential_rate,
            f"{n} rows, a loopback server answering each call after {DELAY_S * 1000:.0f} ms; verdicts agree: "
            f"{agree}; the ceiling is {CONCURRENCY}x",
        ),
        Row(
            "judge: cache hit",
            "one call at a time",
            sequential_rate,
            cache_rate,
            "rows/s",
            TARGET_CACHE_RATE,
            hits and cache_rate >= 10_000,
            f"the same rows again from the sqlite cache ({n * repeats} lookups, all hits: {hits}), no call made",
        ),
    ]
