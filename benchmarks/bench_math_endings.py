"""How reasoning models end their answers: rewardkit's math verifier and math-verify on the same rows.

    .venv/bin/python benchmarks/bench_math_endings.py [--show] [--table NAME]

The rows are ``tests/verifiers/math_answer/math_endings.py`` (self-checks, restatements, rejected values, changes of
answer, alternatives, case analyses, checks that end on the reference by coincidence, completions that never
answered) and ``tests/verifiers/math_answer/math_notations.py`` (answers in other scripts and notations, exactness,
units). Each is judged by rewardkit's default math verifier and by math-verify's default
``verify(parse(f"${reference}$"), parse(completion))``; the script prints per table how many rows each
judge gets right, and how many of its credits are false (a credit where the row expects none).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent / "tests" / "verifiers" / "math_answer"


def _tables() -> dict[str, list[tuple[str, object, str, bool]]]:
    sys.path.insert(0, str(TESTS))
    import math_endings
    import math_notations

    return {**math_endings.TABLES, **math_notations.TABLES}


def judge_math_verify(reference: object, completion: str) -> bool:
    from math_verify import parse, verify

    try:
        return bool(verify(parse(f"${reference}$"), parse(completion)))
    except Exception:  # noqa: BLE001 - a failure is a miss, as in a hand-written reward
        return False


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--show", action="store_true", help="list every row either judge gets wrong")
    parser.add_argument("--table", default=None, help="only this table")
    args = parser.parse_args(argv)
    import rewardkit as rk

    tables = _tables()
    if args.table:
        tables = {args.table: tables[args.table]}
    totals = {"rows": 0, "rk": 0, "mv": 0, "rk_false": 0, "mv_false": 0}
    print("| table | rows | rewardkit right | math-verify right | rewardkit false credit | math-verify false credit |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    wrong: list[str] = []
    with rk.get_verifier("math", timeout=10) as verifier:
        for name, rows in tables.items():
            verdicts = verifier.verify_batch([r[2] for r in rows], [r[1] for r in rows])
            ours = [v.correct for v in verdicts]
            theirs = [judge_math_verify(r[1], r[2]) for r in rows]
            expected = [r[3] for r in rows]
            counts = {
                "rows": len(rows),
                "rk": sum(o == e for o, e in zip(ours, expected, strict=True)),
                "mv": sum(t == e for t, e in zip(theirs, expected, strict=True)),
                "rk_false": sum(o and not e for o, e in zip(ours, expected, strict=True)),
                "mv_false": sum(t and not e for t, e in zip(theirs, expected, strict=True)),
            }
            for key, value in counts.items():
                totals[key] += value
            print(
                f"| {name} | {counts['rows']} | {counts['rk']} | {counts['mv']} | {counts['rk_false']} | "
                f"{counts['mv_false']} |"
            )
            for row, verdict, their in zip(rows, verdicts, theirs, strict=True):
                if verdict.correct != row[3] or (args.show and their != row[3]):
                    wrong.append(
                        f"- {name}: {row[0]}: expected {int(row[3])}, rewardkit {int(verdict.correct)} "
                        f"({verdict.status}, {verdict.extracted!r}), math-verify {int(their)}"
                    )
    print(
        f"| **all** | {totals['rows']} | {totals['rk']} | {totals['mv']} | {totals['rk_false']} | "
        f"{totals['mv_false']} |"
    )
    if wrong:
        print("\nRows rewardkit gets wrong" + (" (and rows math-verify gets wrong)" if args.show else "") + ":")
        print("\n".join(wrong))
    return 0


if __name__ == "__main__":
    sys.exit(main())
