"""Math verifier against math-verify: agreement with the truth and speed, on realistic completions.

    .venv/bin/python benchmarks/bench_math_agreement.py [--samples 600] [--seed 7] [--write BENCHMARKS.md]

Every completion is generated with its truth known (see :func:`ordinary_rows`): boxed fractions in an equal
or a wrong form, decimals written to 6 places (rounded right, or not), ``$x = a/b$`` without a box, prose
answers ("So she has 42 apples left.", "The answer is 42 because ..."), GSM8K's ``#### n``, thousands
separators, currency, hedges ("It could be 2 or 3."); about a third are wrong. Then a few pathological
answers (``9^{9^{9^9}}``, ``(10^{10})!``, a power tower), each a miss by truth.

Judged by:

* ``math-verify loop``: ``verify(parse(f"${gold}$"), parse(completion))`` per sample, in-process, in the
  main thread (so its own signal timeouts work) — the usual hand-written TRL reward;
* ``rewardkit``: the math verifier with default settings, one ``verify_batch`` over its worker pool.

Both run in the same process on the same rows; the speed-up is the ratio of their wall times.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

SECTION = "## Math verifier vs math-verify (benchmarks/bench_math_agreement.py)"
PATHOLOGICAL = [
    r"\boxed{9^{9^{9^{9}}}}",
    r"\boxed{(10^{10})!}",
    r"\boxed{2^{2^{2^{2^{2^{2}}}}}}",
    r"The answer is $\boxed{10^{10^{10^{10}}}}$.",
]


@dataclass(frozen=True)
class Row:
    kind: str
    gold: str
    completion: str
    truth: bool


def _frac(value: Fraction) -> str:
    if value.denominator == 1:
        return str(value.numerator)
    sign = "-" if value < 0 else ""
    return rf"{sign}\frac{{{abs(value.numerator)}}}{{{value.denominator}}}"


def _six_places(value: Fraction) -> str:
    return f"{float(value):.6f}"


def ordinary_rows(samples: int, seed: int) -> list[Row]:
    """Completions of eight kinds in turn, with the truth of each known by construction."""
    rng = random.Random(seed)
    rows: list[Row] = []
    makers: list[Callable[[random.Random, bool], Row]] = [
        _boxed_fraction,
        _six_place_decimal,
        _unboxed_assignment,
        _prose_number,
        _statement_with_reason,
        _gsm8k,
        _currency_thousands,
        _hedge,
    ]
    for i in range(samples):
        wrong = rng.random() < 0.3
        rows.append(makers[i % len(makers)](rng, wrong))
    return rows


def _nonterminating(rng: random.Random) -> Fraction:
    while True:
        value = Fraction(rng.randint(1, 400), rng.choice([3, 6, 7, 9, 11, 12, 13, 14, 15, 21]))
        if value.denominator not in (1, 2, 4, 5, 8, 10):
            return value


def _boxed_fraction(rng: random.Random, wrong: bool) -> Row:
    value = _nonterminating(rng)
    shown = value + Fraction(1, value.denominator) if wrong else value
    k = rng.randint(2, 5)
    form = rf"\frac{{{shown.numerator * k}}}{{{shown.denominator * k}}}" if rng.random() < 0.5 else _frac(shown)
    text = (
        f"We add the two parts: the first gives {rng.randint(2, 9)} and the second the rest.\n"
        f"Simplifying, the result is $\\boxed{{{form}}}$."
    )
    return Row("boxed fraction", _frac(value), text, not wrong)


def _six_place_decimal(rng: random.Random, wrong: bool) -> Row:
    value = _nonterminating(rng)
    shown = _six_places(value + Fraction(1, 10**5)) if wrong else _six_places(value)
    text = f"Dividing, we find the ratio is approximately $\\boxed{{{shown}}}$."
    return Row("6-place decimal", _frac(value), text, not wrong)


def _unboxed_assignment(rng: random.Random, wrong: bool) -> Row:
    value = _nonterminating(rng)
    shown = value * 2 if wrong else value
    a, b = shown.numerator, shown.denominator
    form = rf"\frac{{{a}}}{{{b}}}" if rng.random() < 0.5 else f"{a}/{b}"
    text = f"Moving the terms across gives ${b}x = {a}$, so $x = {form}$."
    return Row("$x = a/b$ unboxed", _frac(value), text, not wrong)


def _prose_number(rng: random.Random, wrong: bool) -> Row:
    total, eaten = rng.randint(30, 900), rng.randint(1, 29)
    left = total - eaten + (rng.randint(1, 5) if wrong else 0)
    text = f"She starts with {total} apples and eats {eaten}. So she has {left} apples left."
    return Row("prose number", str(total - eaten), text, not wrong)


def _statement_with_reason(rng: random.Random, wrong: bool) -> Row:
    a, b = rng.randint(3, 40), rng.randint(3, 40)
    said = a * b + (1 if wrong else 0)
    text = f"Final Answer: The final answer is {said} because {a} rows of {b} chairs make {a * b} chairs."
    return Row("statement with a reason", str(a * b), text, not wrong)


def _gsm8k(rng: random.Random, wrong: bool) -> Row:
    price, count = rng.randint(2, 60), rng.randint(2, 30)
    said = price * count - (price if wrong else 0)
    text = f"Each ticket costs {price} dollars, and {count} tickets cost {price} * {count} = {said}.\n#### {said}"
    gold = (
        f"{count} tickets at {price} each: {price}*{count}=<<{price}*{count}={price * count}>>{price * count}\n"
        f"#### {price * count}"
    )
    return Row("gsm8k ####", gold, text, not wrong)


def _currency_thousands(rng: random.Random, wrong: bool) -> Row:
    amount = rng.randint(1_000, 9_999_999)
    said = amount + 1000 if wrong else amount
    text = f"Adding the payments, the total cost is \\${said:,}."
    return Row("currency, thousands", str(amount), text, not wrong)


def _hedge(rng: random.Random, wrong: bool) -> Row:
    value = rng.randint(2, 99)
    if wrong:
        text = f"I am not certain; it could be {value - 1} or {value}."
        return Row("hedge (always a miss)", str(value), text, False)
    text = f"Checking both cases, only one works, so the answer is {value}."
    return Row("hedge (always a miss)", str(value), text, True)


def pathological_rows() -> list[Row]:
    return [Row("pathological", "3", completion, False) for completion in PATHOLOGICAL]


def judge_math_verify(rows: list[Row]) -> tuple[list[bool], float]:
    from math_verify import parse, verify

    parse("$1$"), verify(parse("$1$"), parse("$1$"))  # imports and grammar loads outside the timing
    start = time.perf_counter()
    out = []
    for row in rows:
        try:
            out.append(bool(verify(parse(f"${row.gold}$"), parse(row.completion))))
        except Exception:  # noqa: BLE001 - a hand-written reward scores any failure 0
            out.append(False)
    return out, time.perf_counter() - start


def judge_rewardkit(verifier, rows: list[Row]) -> tuple[list[bool], list[str], float]:
    start = time.perf_counter()
    verdicts = verifier.verify_batch([r.completion for r in rows], [r.gold for r in rows])
    seconds = time.perf_counter() - start
    # "identical" verdicts are settled in the caller's thread; the rest went through the worker pool
    statuses = [v.status if v.details.get("reason") != "identical" else "identical" for v in verdicts]
    return [v.correct for v in verdicts], statuses, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", type=int, default=600)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--write", default=None, help="append/replace this script's section in this file")
    args = parser.parse_args()

    import rewardkit as rk

    ordinary = ordinary_rows(args.samples, args.seed)
    everything = ordinary + pathological_rows()
    load = os.getloadavg()[0]
    with rk.get_verifier("math") as verifier:
        verifier.verify_batch([r"\boxed{\frac{1}{3}}"] * 8, ["0.333333"] * 8)  # start the pool outside timings
        ours, ordinary_statuses, our_seconds = judge_rewardkit(verifier, ordinary)
        ours_all, statuses, our_all_seconds = judge_rewardkit(verifier, everything)
        workers = verifier.pool.size
    theirs, their_seconds = judge_math_verify(ordinary)
    theirs_patho, their_patho_seconds = judge_math_verify(everything[len(ordinary) :])
    their_all_seconds = their_seconds + their_patho_seconds

    lines = [
        SECTION,
        "",
        (
            f"{os.cpu_count()} CPUs ({platform.machine()}, Python {platform.python_version()}), load average "
            f"{load:.1f} at the start (a shared machine), rewardkit pool of {workers} workers, seed {args.seed}. "
            f"Both judges run in this one process on the same rows; math-verify gets the gold as `$gold$`."
        ),
        "",
    ]
    lines += ["| rows | judge | agrees with the truth | seconds | speed-up |", "| --- | --- | ---: | ---: | ---: |"]
    n, m = len(ordinary), len(everything)
    our_ok = sum(o == r.truth for o, r in zip(ours, ordinary, strict=False))
    their_ok = sum(t == r.truth for t, r in zip(theirs, ordinary, strict=False))
    lines.append(f"| {n} ordinary | math-verify loop | {their_ok}/{n} | {their_seconds:.2f} | 1.00x |")
    lines.append(
        f"| {n} ordinary | rewardkit verify_batch | {our_ok}/{n} | {our_seconds:.2f} | "
        f"{their_seconds / our_seconds:.1f}x |"
    )
    our_all_ok = sum(o == r.truth for o, r in zip(ours_all, everything, strict=False))
    their_all_ok = their_ok + sum(t == r.truth for t, r in zip(theirs_patho, everything[n:], strict=False))
    lines.append(
        f"| {n} + {m - n} pathological | math-verify loop | {their_all_ok}/{m} | {their_all_seconds:.2f} | 1.00x |"
    )
    lines.append(
        f"| {n} + {m - n} pathological | rewardkit verify_batch | {our_all_ok}/{m} | "
        f"{our_all_seconds:.2f} | {their_all_seconds / our_all_seconds:.1f}x |"
    )
    right = [i for i, (t, r) in enumerate(zip(theirs, ordinary, strict=False)) if t == r.truth]
    same = sum(ours[i] == theirs[i] for i in right)
    lines += [
        "",
        (
            f"Identical verdicts on {same}/{len(right)} ordinary samples where math-verify is right; "
            f"identical on {sum(o == t for o, t in zip(ours, theirs, strict=False))}/{n} ordinary samples in all. "
            f"Pathological statuses from rewardkit: {', '.join(statuses[n:])}. Of the ordinary samples, "
            f"{ordinary_statuses.count('identical')} were written like the reference and settled in the "
            f"caller's thread; the other {n - ordinary_statuses.count('identical')} went through the worker pool, "
            f"where plain numbers are compared exactly without sympy. math-verify parses every completion and "
            f"reference with its LaTeX grammar."
        ),
        "",
    ]
    lines += ["| kind | samples | rewardkit right | math-verify right |", "| --- | ---: | ---: | ---: |"]
    for kind in dict.fromkeys(r.kind for r in ordinary):
        idx = [i for i, r in enumerate(ordinary) if r.kind == kind]
        lines.append(
            f"| {kind} | {len(idx)} | {sum(ours[i] == ordinary[i].truth for i in idx)} | "
            f"{sum(theirs[i] == ordinary[i].truth for i in idx)} |"
        )
    differing = [i for i in range(n) if ours[i] != theirs[i]]
    if differing:
        lines += ["", "Samples judged differently (truth, rewardkit, math-verify):", ""]
        for i in differing[:12]:
            r = ordinary[i]
            lines.append(
                f"- {r.kind}: truth {int(r.truth)}, rewardkit {int(ours[i])}, math-verify "
                f"{int(theirs[i])}: `{' '.join(r.completion.split())[:110]}`"
            )
    section = "\n".join(lines) + "\n"
    print(section)
    if args.write:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from bench_rewards import write_section

        write_section(Path(args.write), section, SECTION)


if __name__ == "__main__":
    main()
