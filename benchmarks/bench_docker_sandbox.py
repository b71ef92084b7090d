"""Docker sandbox throughput: the warm pool against a cold `docker run` per program, measured in one run.

    python benchmarks/bench_docker_sandbox.py            # print the table
    python benchmarks/bench_docker_sandbox.py --write    # also replace this section of BENCHMARKS.md

Variants (all run the same small Python program through the same locked-down container settings):
  cold `docker run` per program   the baseline: create, start, wait, read logs, remove, one per program
  warm pool, reuse + wipe          the default: one long-lived supervisor per container, wiped after each run
  warm pool, fresh container       fresh_container_per_run=True: each container is replaced after one run
and the code verifier end to end (a HumanEval-style check) on the warm pool and with sandbox="local".
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import sys
import threading
import time
from pathlib import Path

import rewardkit as rk
from rewardkit.sandbox.base import Limits
from rewardkit.sandbox.docker.image_build import DEFAULT_IMAGE, docker_client
from rewardkit.sandbox.docker.pool import ContainerSpec
from rewardkit.verifiers.code_tests.job import warm_program

PROGRAM = "import json, math\nprint(json.dumps([math.factorial(n) % 97 for n in range(200)])[:20])\n"
EXPECTED_PREFIX = b"[1, 1, 2, 6, 24, 23"
NOTE = (
    "The cold baseline creates, starts, waits for, reads the log of and removes one container per program. "
    "The warm pool keeps one supervisor per container and per run pays one request over the exec stream "
    "plus the kill-and-wipe that isolates runs; the fresh-container mode also pays for a container start "
    "and a supervisor exec per program (done in the background, but on the same 2 CPUs)."
)
SECTION = "## Docker sandbox (benchmarks/bench_docker_sandbox.py)"
CODE_PROGRAM = "def total(xs):\n    return sum(xs)\n"
CODE_TEST = {
    "test": "def check(candidate):\n    assert candidate([1, 2]) == 3\n    assert candidate([]) == 0\n",
    "entry_point": "total",
}


def cold_runs(n: int, threads: int) -> float:
    """Seconds for ``n`` programs, each in its own `docker run` with the pool's security settings."""
    client = docker_client()
    spec = ContainerSpec(
        image=DEFAULT_IMAGE,
        memory_bytes=512 << 20,
        pids=64,
        cpus=1.0,
        tmpfs_bytes=64 << 20,
        shm_bytes=16 << 20,
        labels={"org.rewardkit.bench": "cold"},
    )
    base = spec.run_kwargs()
    base.update(
        command=["python3", "-c", PROGRAM], user="1000:1000", cap_add=[], log_config={"type": "json-file", "config": {}}
    )  # the output is read back from the log

    def checked() -> None:
        container = client.containers.run(**base)
        try:
            container.wait(timeout=60)
            out = container.logs(stdout=True, stderr=False)
            assert out.startswith(EXPECTED_PREFIX), out
        finally:
            container.remove(force=True)

    return _timed(checked, n, threads)


def pool_runs(n: int, threads: int, fresh: bool) -> float:
    with rk.get_sandbox(
        "docker",
        pool_size=threads,
        fresh_container_per_run=fresh,
        limits=Limits(wall_time=30, cpu_time=30),
        warm=warm_program(),
    ) as sb:
        sb.run(["python3", "-c", "pass"], {})  # every container is already warm; one run settles imports

        def one() -> None:
            result = sb.run(["python3", "main.py"], {"main.py": PROGRAM})
            assert result.stdout.startswith(EXPECTED_PREFIX), result

        return _timed(one, n, threads)


def verifier_runs(n: int, threads: int, sandbox: str) -> float:
    options = {"pool_size": threads} if sandbox == "docker" else {}
    with rk.get_verifier("code", sandbox=sandbox, sandbox_options=options, wall_time=10, workers=threads) as v:
        v.verify(CODE_PROGRAM, CODE_TEST)
        started = time.perf_counter()
        verdicts = v.verify_batch([CODE_PROGRAM] * n, [CODE_TEST] * n)
        seconds = time.perf_counter() - started
    assert all(x.score == 1.0 for x in verdicts), [x.status for x in verdicts]
    return seconds


def _timed(fn, n: int, threads: int) -> float:
    counter = iter(range(n))
    lock = threading.Lock()

    def worker() -> None:
        while True:
            with lock:
                if next(counter, None) is None:
                    return
            fn()

    started = time.perf_counter()
    pool = [threading.Thread(target=worker) for _ in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    return time.perf_counter() - started


def best_of(repeats: int, fn, *args) -> float:
    return min(fn(*args) for _ in range(repeats))


def render(
    rows: list[tuple[str, int, float]], verifier_rows: list[tuple[str, int, float]], threads: int, repeats: int
) -> str:
    base = rows[0][1] / rows[0][2]
    load = os.getloadavg()[0]
    lines = [
        SECTION,
        "",
        (
            f"Best of {repeats} runs per variant, {os.cpu_count()} CPUs ({platform.machine()}, Python "
            f"{platform.python_version()}, load average {load:.1f} at the end), {threads} programs at a time, "
            f"image {DEFAULT_IMAGE}. Speed-ups are against a cold `docker run` per program with the same "
            "security settings, measured in the same run."
        ),
        "",
        "**A small Python program (imports json and math, prints a line).**",
        "",
        "| variant | programs | seconds | programs/s | speed-up |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for name, n, seconds in rows:
        rate = n / seconds
        lines.append(f"| {name} | {n} | {seconds:.2f} | {rate:.1f} | {rate / base:.2f}x |")
    lines += ["", NOTE]
    lines += [
        "",
        "**The code verifier end to end (HumanEval-style check, two asserts; harness included).**",
        "",
        "| sandbox | verdicts | seconds | verdicts/s |",
        "| --- | ---: | ---: | ---: |",
    ]
    for name, n, seconds in verifier_rows:
        lines.append(f"| {name} | {n} | {seconds:.2f} | {n / seconds:.1f} |")
    lines.append("")
    return "\n".join(lines)


def write_section(text: str, path: Path) -> None:
    current = path.read_text() if path.exists() else "# Benchmarks\n"
    pattern = re.compile(rf"^{re.escape(SECTION)}\n.*?(?=^## |\Z)", re.DOTALL | re.MULTILINE)
    if pattern.search(current):
        updated = pattern.sub(lambda _m: text + "\n", current)
    else:
        updated = current.rstrip("\n") + "\n\n" + text
    path.write_text(updated)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=40, help="programs per variant")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--write", action="store_true", help="replace this section of BENCHMARKS.md")
    args = parser.parse_args()
    n, threads, repeats = args.n, args.threads, args.repeats
    rows = [
        ("cold `docker run` per program (baseline)", n, best_of(repeats, cold_runs, n, threads)),
        ("warm pool, reuse + wipe (default)", n, best_of(repeats, pool_runs, n, threads, False)),
        ("warm pool, fresh container per run", n, best_of(repeats, pool_runs, n, threads, True)),
    ]
    verifier_rows = [
        ('code verifier, sandbox="docker"', n, best_of(repeats, verifier_runs, n, threads, "docker")),
        ('code verifier, sandbox="local"', n, best_of(repeats, verifier_runs, n, threads, "local")),
    ]
    text = render(rows, verifier_rows, threads, repeats)
    print(text)
    if args.write:
        write_section(text, Path(__file__).resolve().parent.parent / "BENCHMARKS.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
