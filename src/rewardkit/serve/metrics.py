"""The service's counters, gauges and latency histogram, rendered as Prometheus text (no client library)."""

from __future__ import annotations

import bisect
import threading
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0)
BATCH_BUCKETS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 4096)


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _labels(**labels: str) -> str:
    return "{" + ",".join(f'{k}="{_escape(v)}"' for k, v in labels.items()) + "}" if labels else ""


def _number(value: float) -> str:
    return repr(float(value)) if isinstance(value, float) else str(value)


class Histogram:
    """Cumulative buckets, sum and count of one labelled series."""

    def __init__(self, buckets: tuple[float, ...]) -> None:
        self.buckets = buckets
        self.counts = [0] * len(buckets)
        self.total = 0.0
        self.count = 0

    def observe(self, value: float) -> None:
        index = bisect.bisect_left(self.buckets, value)
        if index < len(self.counts):
            self.counts[index] += 1
        self.total += value
        self.count += 1

    def lines(self, name: str, **labels: str) -> Iterable[str]:
        running = 0
        for bound, count in zip(self.buckets, self.counts, strict=True):
            running += count
            yield f"{name}_bucket{_labels(**labels, le=_number(bound))} {running}"
        yield f"{name}_bucket{_labels(**labels, le='+Inf')} {self.count}"
        yield f"{name}_sum{_labels(**labels)} {self.total!r}"
        yield f"{name}_count{_labels(**labels)} {self.count}"


class ServiceMetrics:
    """What ``GET /metrics`` reports. Updated from the event loop and the batcher's threads (one lock)."""

    def __init__(self, endpoints: Iterable[str]) -> None:
        self.endpoints = frozenset(endpoints)
        self._lock = threading.Lock()
        self.requests: defaultdict[tuple[str, str], int] = defaultdict(int)
        self.latency: dict[str, Histogram] = {}
        self.rows: defaultdict[str, int] = defaultdict(int)
        self.statuses: defaultdict[tuple[str, str], int] = defaultdict(int)
        self.no_value_rows = 0
        self.row_errors = 0
        self.in_flight = 0
        self.batches = 0
        self.batch_rows = Histogram(BATCH_BUCKETS)
        self.merged_requests = 0
        self.started = time.time()
        self.queue_rows: Callable[[], int] = lambda: 0
        self.in_flight_rows: Callable[[], int] = lambda: 0

    def endpoint(self, path: str) -> str:
        return path if path in self.endpoints else "other"

    def request_started(self) -> None:
        with self._lock:
            self.in_flight += 1

    def request_done(self, endpoint: str, code: int, seconds: float) -> None:
        with self._lock:
            self.in_flight -= 1
            self.requests[(endpoint, str(code))] += 1
            self.latency.setdefault(endpoint, Histogram(LATENCY_BUCKETS)).observe(seconds)

    def scored(self, endpoint: str, values: list[Any], statuses: dict[str, list[str | None]], errors: int) -> None:
        with self._lock:
            self.rows[endpoint] += len(values)
            self.row_errors += errors
            self.no_value_rows += sum(v is None for v in values)
            for term, column in statuses.items():
                for status in column:
                    if status is not None:
                        self.statuses[(term, str(status))] += 1

    def batch(self, rows: int, calls: int, seconds: float) -> None:
        with self._lock:
            self.batches += 1
            self.batch_rows.observe(rows)
            if calls > 1:
                self.merged_requests += calls

    def render(self) -> str:
        with self._lock:
            lines: list[str] = []

            def family(name: str, kind: str, help_text: str) -> None:
                lines.extend([f"# HELP {name} {help_text}", f"# TYPE {name} {kind}"])

            family("rewardkit_requests_total", "counter", "HTTP requests answered, by endpoint and status code.")
            for (endpoint, code), n in sorted(self.requests.items()):
                lines.append(f"rewardkit_requests_total{_labels(endpoint=endpoint, code=code)} {n}")
            family("rewardkit_request_seconds", "histogram", "Time from a request's arrival to its answer.")
            for endpoint, histogram in sorted(self.latency.items()):
                lines.extend(histogram.lines("rewardkit_request_seconds", endpoint=endpoint))
            family("rewardkit_rows_total", "counter", "Rows scored, by endpoint.")
            for endpoint, n in sorted(self.rows.items()):
                lines.append(f"rewardkit_rows_total{_labels(endpoint=endpoint)} {n}")
            family("rewardkit_statuses_total", "counter", "Verdict statuses, by verifier term and status.")
            for (term, status), n in sorted(self.statuses.items()):
                lines.append(f"rewardkit_statuses_total{_labels(term=term, status=status)} {n}")
            family("rewardkit_no_value_rows_total", "counter", "Rows whose reward has no value (None).")
            lines.append(f"rewardkit_no_value_rows_total {self.no_value_rows}")
            family("rewardkit_row_errors_total", "counter", "Rows whose scoring raised (status error, no value).")
            lines.append(f"rewardkit_row_errors_total {self.row_errors}")
            family("rewardkit_in_flight_requests", "gauge", "Requests being answered now.")
            lines.append(f"rewardkit_in_flight_requests {self.in_flight}")
            family("rewardkit_queue_rows", "gauge", "Rows waiting for a reward call (the bounded queue's depth).")
            lines.append(f"rewardkit_queue_rows {self.queue_rows()}")
            family("rewardkit_in_flight_rows", "gauge", "Rows in reward calls now.")
            lines.append(f"rewardkit_in_flight_rows {self.in_flight_rows()}")
            family("rewardkit_batches_total", "counter", "Reward calls made (each a batch of merged requests).")
            lines.append(f"rewardkit_batches_total {self.batches}")
            family("rewardkit_batch_rows", "histogram", "Rows per reward call.")
            lines.extend(self.batch_rows.lines("rewardkit_batch_rows"))
            family("rewardkit_merged_requests_total", "counter", "Requests that shared a reward call with others.")
            lines.append(f"rewardkit_merged_requests_total {self.merged_requests}")
            family("rewardkit_start_time_seconds", "gauge", "Unix time the service started.")
            lines.append(f"rewardkit_start_time_seconds {self.started!r}")
        return "\n".join(lines) + "\n"


class MetricsMiddleware:
    """Counts every HTTP request (those refused by the guards inside it too) with its status and latency."""

    def __init__(self, app: ASGIApp, metrics: ServiceMetrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        code = 500

        async def send_and_record(message: Message) -> None:
            nonlocal code
            if message["type"] == "http.response.start":
                code = int(message["status"])
            await send(message)

        self.metrics.request_started()
        try:
            await self.app(scope, receive, send_and_record)
        finally:
            path = scope.get("path", "")
            root = scope.get("root_path", "")
            if root and path.startswith(root):
                path = path[len(root) :] or "/"
            self.metrics.request_done(self.metrics.endpoint(path), code, time.perf_counter() - started)
