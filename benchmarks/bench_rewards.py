"""Reward throughput: rewardkit's batched math_accuracy against per-sample loops, measured in one run.

    .venv/bin/python benchmarks/bench_rewards.py [--samples 240] [--repeats 3] [--write BENCHMARKS.md]

Inputs are generated math answers (see :func:`math_rows`), fresh values for every run so that no cache
serves a run. Compared, on rows of the same kind:

* ``per-sample verify()``: the same math verifier (same worker pool), called once per completion in a loop;
* ``math-verify loop``: math_verify.parse/verify in-process per completion, the usual hand-written TRL
  reward (no timeout protection: a pathological answer would stall the batch);
* ``rk math_accuracy``: the rewardkit reward, one ``verify_batch`` per call over the verifier's pool;
* ``rk composite``: sum of math_accuracy, tag_format and repetition_penalty (the overhead of composition).

Each figure is the best of ``--repeats`` runs; ratios are against the per-sample verify() loop.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SECTION = "## Rewards (benchmarks/bench_rewards.py)"


def math_rows(samples: int, seed: int, verbatim: bool) -> list[dict]:
    """Tagged boxed answers, one in four wrong. ``verbatim``: the answer is written like the reference
    (settled in-process without the pool); else in an equal but different form (``\\frac{6}{4}`` for
    ``\\frac{3}{2}``, ``0.75`` for ``\\frac{3}{4}``), which needs a symbolic comparison in the pool.
    Each seed gives other values, so no cache (rewardkit's memo, the workers' comparison cache) serves a run."""
    import random
    from fractions import Fraction

    rng = random.Random(seed)
    rows = []
    for i in range(samples):
        value = Fraction(rng.randint(-(10**6), 10**6), rng.choice([1, 2, 4, 5, 8, 3, 7]))
        ref = str(value.numerator) if value.denominator == 1 else rf"\frac{{{value.numerator}}}{{{value.denominator}}}"
        shown = value + 1 if i % 4 == 3 else value
        k = rng.randint(2, 9)
        if verbatim:
            form = (
                str(shown.numerator)
                if shown.denominator == 1
                else rf"\frac{{{shown.numerator}}}{{{shown.denominator}}}"
            )
        elif shown.denominator in (2, 4, 5, 8) and i % 2:
            form = format(float(shown), "f").rstrip("0").rstrip(".")
        else:
            form = rf"\frac{{{shown.numerator * k}}}{{{shown.denominator * k}}}"
        rows.append({"completion": f"<think>work</think><answer>\\boxed{{{form}}}</answer>", "answer": ref})
    return rows


def best_of(
    repeats: int, run: Callable[[list[dict]], list], make_rows: Callable[[int], list[dict]], first_seed: int
) -> tuple[float, list, list[dict]]:
    """Best time of ``repeats`` runs, each on fresh rows; the scores and rows of the first run."""
    times, first = [], None
    for r in range(repeats):
        rows = make_rows(first_seed + r)
        start = time.perf_counter()
        out = run(rows)
        times.append(time.perf_counter() - start)
        if first is None:
            first = (out, rows)
    return min(times), first[0], first[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", type=int, default=240)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--write", default=None, help="append/replace this script's section in this file")
    args = parser.parse_args()

    import rewardkit as rk

    accuracy = rk.get_reward("math_accuracy")
    composite = rk.build_reward(
        {
            "combine": "sum",
            "terms": [
                "math_accuracy",
                {"reward": "tag_format", "weight": 0.5},
                {"reward": "repetition_penalty", "weight": 0.5},
            ],
        }
    )
    accuracy(completions=["\\boxed{1}"] * 4, answer=["2"] * 4)  # start the worker pool outside the timings
    verifier = accuracy.verifier
    lines = [
        SECTION,
        "",
        (
            f"Best of {args.repeats} runs per variant, {os.cpu_count()} CPUs ({platform.machine()}, Python "
            f"{platform.python_version()}, load average {os.getloadavg()[0]:.1f} at the start), math verifier "
            f"pool of {verifier.pool.size} workers. Speed-ups are against the per-sample verify() loop over the "
            f"same verifier on the same rows, measured in the same run. The batch keeps every pool worker "
            f"busy and overlaps the per-sample round trips to the workers, which the loop waits out one by one; "
            f"a load average well above the CPU count (a shared machine) makes single figures noisy, hence "
            f"best-of."
        ),
    ]
    inputs = [
        ("answers in an equal but different form: each needs a symbolic comparison in the worker pool", False),
        ("answers written like the reference: settled in-process, the pool is not used", True),
    ]
    for title, verbatim in inputs:
        lines += ["", f"**{args.samples} completions per run, {title}.**", ""]
        lines += run_cases(args.samples, verbatim, args.repeats, accuracy, composite, verifier)
    accuracy.close()
    composite.close()
    section = "\n".join(lines) + "\n"
    print(section)
    if args.write:
        write_section(Path(args.write), section)


def run_cases(samples: int, verbatim: bool, repeats: int, accuracy, composite, verifier) -> list[str]:
    from rewardkit.rewards.inputs import completion_text

    def per_sample_verify(rows: list[dict]) -> list:
        return [verifier.verify(completion_text(r["completion"]), r["answer"]).score for r in rows]

    def math_verify_loop(rows: list[dict]) -> list:
        from math_verify import parse, verify

        out = []
        for r in rows:
            try:
                out.append(float(verify(parse(f"${r['answer']}$"), parse(r["completion"]))))
            except Exception:  # noqa: BLE001 - a hand-written reward scores any failure 0
                out.append(0.0)
        return out

    def call(reward):
        return lambda rows: reward(completions=[r["completion"] for r in rows], answer=[r["answer"] for r in rows])

    cases = [
        ("per-sample verify() loop (baseline)", per_sample_verify),
        ("math-verify per-sample loop, in-process, no timeout", math_verify_loop),
        ("rk math_accuracy (one verify_batch)", call(accuracy)),
        ("rk composite: accuracy + format + repetition", call(composite)),
    ]
    results = {}
    for index, (label, run) in enumerate(cases):
        results[label] = best_of(repeats, run, lambda seed: math_rows(samples, seed, verbatim), 1000 * index)
    baseline_seconds = results[cases[0][0]][0]
    batched_scores = results[cases[2][0]][1]
    check = per_sample_verify(results[cases[2][0]][2])
    agree = statistics.mean(float(a == b) for a, b in zip(check, batched_scores, strict=False))
    lines = [
        "| variant | seconds | samples/s | speed-up |",
        "| --- | ---: | ---: | ---: |",
    ]
    for label, (seconds, _, _) in results.items():
        lines.append(f"| {label} | {seconds:.3f} | {samples / seconds:,.0f} | {baseline_seconds / seconds:.2f}x |")
    summary = (
        f"The batched reward's scores equal per-sample verify()'s on {agree:.0%} of rows; mean accuracy "
        f"{statistics.mean(batched_scores):.3f} (expected 0.750)."
    )
    lines += ["", summary]
    return lines


def write_section(path: Path, section: str, heading: str = SECTION) -> None:
    """Replace the section under ``heading`` in ``path`` (or append it), leaving the other sections as they are."""
    text = path.read_text() if path.exists() else "# Benchmarks\n\n"
    if heading in text:
        start = text.index(heading)
        rest = text[start + len(heading) :]
        end = rest.find("\n## ")
        text = text[:start] + section + (rest[end + 1 :] if end >= 0 else "")
    else:
        text = text.rstrip("\n") + "\n\n" + section
    path.write_text(text.rstrip("\n") + "\n")


if __name__ == "__main__":
    main()
