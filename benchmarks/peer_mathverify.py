"""Peer check: rewardkit's math verifier and math-verify on Math-Verify's own regression tables.

    MATH_VERIFY_REPO=/path/to/Math-Verify .venv/bin/python benchmarks/peer_mathverify.py
    .venv/bin/python benchmarks/peer_mathverify.py /path/to/Math-Verify [--show-agreeing]

The path is a checkout of huggingface/Math-Verify or a bare git directory of it (read with ``git show``).
Nothing of that repository is copied into this one: its test files are read at run time, and the
``(gold, pred, expected)`` rows of every ``@pytest.mark.parametrize`` whose argument names are exactly those
three and whose rows are plain literals are taken (rows with extra settings such as ``precision`` or
``strict`` test math-verify's knobs, not a default verdict, and are left out; the script says how many).

Each row is judged by rewardkit's default math verifier (``verify_batch``) and by math-verify's default
``verify(parse(gold), parse(pred))``; the script prints each side's agreement with ``expected`` and every
row on which rewardkit's verdict differs from ``expected``. Not a CI test: CI has no copy of that repository.
"""

from __future__ import annotations

import argparse
import ast
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

COLUMNS = ["gold", "pred", "expected"]


@dataclass(frozen=True)
class Row:
    where: str
    gold: str
    pred: str
    expected: bool


def _test_files(repo: Path) -> list[tuple[str, str]]:
    """``(path, source)`` of every Python file under ``tests/`` of a checkout or a bare git directory."""
    if (repo / "tests").is_dir():
        return [(str(p.relative_to(repo)), p.read_text()) for p in sorted((repo / "tests").rglob("*.py"))]
    git = ["git", f"--git-dir={repo}"]
    names = subprocess.run(
        [*git, "ls-tree", "-r", "--name-only", "HEAD", "tests/"], capture_output=True, text=True, check=True
    ).stdout.split()
    return [
        (n, subprocess.run([*git, "show", f"HEAD:{n}"], capture_output=True, text=True, check=True).stdout)
        for n in names
        if n.endswith(".py")
    ]


def load_rows(repo: Path) -> tuple[list[Row], int]:
    """The literal ``(gold, pred, expected)`` rows, and how many parametrised rows were left out."""
    rows: list[Row] = []
    skipped = 0
    for path, source in _test_files(repo):
        for node in ast.walk(ast.parse(source)):
            if not isinstance(node, ast.FunctionDef):
                continue
            for decorator in node.decorator_list:
                if not (
                    isinstance(decorator, ast.Call)
                    and getattr(decorator.func, "attr", "") == "parametrize"
                    and len(decorator.args) >= 2
                    and isinstance(decorator.args[1], (ast.List, ast.Tuple))
                ):
                    continue
                names = ast.literal_eval(decorator.args[0])
                names = [n.strip() for n in (names.split(",") if isinstance(names, str) else names)]
                for index, element in enumerate(decorator.args[1].elts):
                    try:
                        values = ast.literal_eval(element)
                    except ValueError:
                        skipped += 1
                        continue
                    if names != COLUMNS:
                        skipped += 1
                        continue
                    gold, pred, expected = values
                    rows.append(Row(f"{path}::{node.name}[{index}]", gold, pred, bool(expected)))
    return rows, skipped


def judge_math_verify(rows: list[Row]) -> tuple[list[bool], float]:
    from math_verify import parse, verify

    start = time.perf_counter()
    out = []
    for row in rows:
        try:
            out.append(bool(verify(parse(row.gold), parse(row.pred))))
        except Exception:  # noqa: BLE001 - a failure is a miss, as in a hand-written reward
            out.append(False)
    return out, time.perf_counter() - start


def judge_rewardkit(rows: list[Row], timeout: float | None) -> tuple[list, float]:
    import rewardkit as rk

    with rk.get_verifier("math", **({"timeout": timeout} if timeout else {})) as verifier:
        verifier.verify(r"\boxed{1}", "1")  # start the workers outside the timing
        start = time.perf_counter()
        verdicts = verifier.verify_batch([r.pred for r in rows], [r.gold for r in rows])
        return verdicts, time.perf_counter() - start


def _short(text: str, limit: int = 110) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else f"{text[:40]} … {text[-(limit - 45) :]}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "repo",
        nargs="?",
        default=os.environ.get("MATH_VERIFY_REPO"),
        help="checkout or bare git dir of huggingface/Math-Verify (default: $MATH_VERIFY_REPO)",
    )
    parser.add_argument("--show-agreeing", action="store_true", help="also list rows where math-verify is wrong")
    parser.add_argument(
        "--timeout",
        type=float,
        default=None,
        help="rewardkit's per-sample limit (default: the verifier's, 1.5 s); on a loaded machine a "
        "symbolic row can pass it, and the script counts those timeouts",
    )
    args = parser.parse_args(argv)
    if not args.repo or not Path(args.repo).exists():
        print("no Math-Verify snapshot: pass its path or set MATH_VERIFY_REPO", file=sys.stderr)
        return 2
    rows, skipped = load_rows(Path(args.repo))
    print(
        f"{len(rows)} literal (gold, pred, expected) rows; {skipped} parametrised rows with other columns "
        f"or non-literal values left out"
    )
    theirs, their_seconds = judge_math_verify(rows)
    ours, our_seconds = judge_rewardkit(rows, args.timeout)
    our_ok = sum(v.correct == r.expected for v, r in zip(ours, rows, strict=False))
    their_ok = sum(t == r.expected for t, r in zip(theirs, rows, strict=False))
    print("\n| judge | agrees with expected | seconds |\n| --- | ---: | ---: |")
    print(f"| rewardkit math verifier (default settings) | {our_ok}/{len(rows)} | {our_seconds:.2f} |")
    print(f"| math-verify verify(parse(gold), parse(pred)) | {their_ok}/{len(rows)} | {their_seconds:.2f} |")
    timeouts = sum(v.status == "timeout" for v in ours)
    print(f"\nLoad average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs; rewardkit timeouts: {timeouts}.")
    print("\nRows rewardkit judges differently from expected (R = rewardkit, M = math-verify):")
    for row, verdict, their in zip(rows, ours, theirs, strict=False):
        if verdict.correct != row.expected or (args.show_agreeing and their != row.expected):
            print(
                f"- {row.where}: expected {int(row.expected)}, R {int(verdict.correct)} ({verdict.status}, "
                f"extracted {_short(verdict.extracted or '', 60)!r}), M {int(their)}"
            )
            print(f"    gold: {_short(row.gold)!r}\n    pred: {_short(row.pred)!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
