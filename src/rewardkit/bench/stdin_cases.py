"""``rewardkit bench --only code-stdin``: stdin/stdout programs judged case by case, against a plain
``python3 prog.py < case`` loop with no isolation and against verl's ``prime_code`` scorer, in the same run
on the same programs and cases.

The programs are small competitive-programming tasks, each in a right and a subtly wrong version, with many
cases each (as CodeContests and LiveCodeBench rows carry). verl's scorer is loaded from verl's own source: a
checkout or an installed ``verl`` (``REWARDKIT_VERL_SOURCE``, else ``import verl``'s location), else the
``verl`` wheel fetched from PyPI with ``pip download --no-deps`` into a cache dir; nothing of it is part of
rewardkit. Its import of ``pyext`` (which fails on Python 3.11) gets a stand-in that builds the module the
same way.
"""

from __future__ import annotations

import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import types
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from rewardkit.bench.runs import Row, Sizes, skipped

TASKS: dict[str, tuple[str, str]] = {  # name -> (right program, a wrong one that passes some cases)
    "double": ("print(int(input()) * 2)", "n = int(input())\nprint(2 * n if n % 5 else n)"),
    "sum_line": (
        "import sys\nprint(sum(map(int, sys.stdin.read().split())))",
        "import sys\nnums = list(map(int, sys.stdin.read().split()))\nprint(sum(nums[1:]))",
    ),
    "reverse": ("print(input()[::-1])", "s = input()\nprint(s[::-1] if len(s) % 7 else s)"),
    "sort": (
        "n = int(input())\nprint(*sorted(map(int, input().split())))",
        "n = int(input())\nprint(*sorted(map(int, input().split()))[:n - (n > 5)])",
    ),
    "gcd": (
        "import math\na, b = map(int, input().split())\nprint(math.gcd(a, b))",
        "a, b = map(int, input().split())\nprint(min(a, b) if max(a, b) % min(a, b) == 0 else 1)",
    ),
    "max_pair": (
        "import sys\ndata = sys.stdin.buffer.read().split()\nprint(max(int(x) for x in data[1:]))",
        "import sys\ndata = sys.stdin.buffer.read().split()\nprint(max(int(x) for x in data[2:]))",
    ),
}


def _case(task: str, rng: random.Random) -> tuple[str, str]:
    if task == "double":
        n = rng.randint(-(10**6), 10**6)
        return f"{n}\n", f"{2 * n}\n"
    if task == "sum_line":
        nums = [rng.randint(-100, 100) for _ in range(rng.randint(1, 30))]
        return " ".join(map(str, nums)) + "\n", f"{sum(nums)}\n"
    if task == "reverse":
        s = "".join(rng.choice("abcxyz") for _ in range(rng.randint(1, 20)))
        return s + "\n", s[::-1] + "\n"
    if task == "sort":
        nums = [rng.randint(0, 99) for _ in range(rng.randint(1, 12))]
        return f"{len(nums)}\n{' '.join(map(str, nums))}\n", " ".join(map(str, sorted(nums))) + "\n"
    if task == "gcd":
        a, b = rng.randint(1, 10**4), rng.randint(1, 10**4)
        import math

        return f"{a} {b}\n", f"{math.gcd(a, b)}\n"
    nums = [rng.randint(-1000, 1000) for _ in range(rng.randint(2, 20))]
    return f"{len(nums)}\n{' '.join(map(str, nums))}\n", f"{max(nums)}\n"


def workload(programs: int, cases: int, seed: int = 0) -> list[tuple[str, dict[str, list[str]]]]:
    """``programs`` (program, reference) pairs, right and wrong versions in turn, each with ``cases`` cases."""
    rng = random.Random(seed)
    names = sorted(TASKS)
    items = []
    for i in range(programs):
        task = names[(i // 2) % len(names)]
        right, wrong = TASKS[task]
        pairs = [_case(task, rng) for _ in range(cases)]
        items.append(
            (right if i % 2 == 0 else wrong, {"inputs": [p[0] for p in pairs], "outputs": [p[1] for p in pairs]})
        )
    return items


def _same(actual: str, expected: str) -> bool:
    return [line.split() for line in actual.strip().splitlines()] == [
        line.split() for line in expected.strip().splitlines()
    ]


def plain_loop(items: list[tuple[str, dict[str, list[str]]]], threads: int) -> list[bool]:
    """Each program run as ``python3 prog.py < case`` (the interpreter the sandbox runs, without a virtual
    environment's site-packages), one case after another, no isolation at all."""
    base = os.path.join(sys.base_prefix, "bin", "python3")
    python = base if os.path.exists(base) else shutil.which("python3") or sys.executable
    folder = tempfile.mkdtemp(prefix="rk-bench-stdin-")

    def judge(index: int) -> bool:
        program, reference = items[index]
        path = os.path.join(folder, f"prog{index}.py")
        Path(path).write_text(program)
        for given, expected in zip(reference["inputs"], reference["outputs"], strict=True):
            done = subprocess.run([python, path], input=given, capture_output=True, text=True, timeout=30, check=False)
            if done.returncode != 0 or not _same(done.stdout, expected):
                return False
        return True

    try:
        with ThreadPoolExecutor(threads) as pool:
            return list(pool.map(judge, range(len(items))))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def load_prime_code() -> Any:
    """verl's ``prime_code`` package, loaded from verl's source files (see the module docstring)."""
    source = _prime_code_dir()
    if "pyext" not in sys.modules:
        try:
            import pyext  # noqa: F401
        except Exception:  # noqa: BLE001 - pyext 0.7 fails to import on Python 3.11 (inspect.getargspec)
            sys.modules["pyext"] = _pyext_stand_in()
    package = types.ModuleType("rk_bench_prime_code")
    package.__path__ = [str(source)]
    sys.modules[package.__name__] = package
    code = compile((source / "__init__.py").read_text(), str(source / "__init__.py"), "exec")
    package.__file__ = str(source / "__init__.py")
    package.__package__ = package.__name__
    exec(code, package.__dict__)  # verl's own code, as verl would import it
    return package


def _pyext_stand_in() -> types.ModuleType:
    module = types.ModuleType("pyext")

    class RuntimeModule:
        @staticmethod
        def from_string(name: str, doc: str, source: str) -> types.ModuleType:
            made = types.ModuleType(name, doc)
            exec(source, made.__dict__)
            return made

    module.RuntimeModule = RuntimeModule  # type: ignore[attr-defined]
    return module


def _prime_code_dir() -> Path:
    root = os.environ.get("REWARDKIT_VERL_SOURCE")
    candidates = [Path(root)] if root else []
    try:
        import importlib.util

        spec = importlib.util.find_spec("verl")
        if spec is not None and spec.origin:
            candidates.append(Path(spec.origin).parent.parent)
    except (ImportError, ValueError):
        pass
    for base in candidates:
        for found in (base / "verl/utils/reward_score/prime_code", base / "utils/reward_score/prime_code", base):
            if (found / "testing_util.py").is_file():
                return found
    return _downloaded()


def _downloaded() -> Path:
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "rewardkit" / "verl"
    found = next(cache.glob("**/verl/utils/reward_score/prime_code"), None) if cache.is_dir() else None
    if found is not None:
        return found
    cache.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "-q", "-d", str(cache), "verl"],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    wheels = sorted(cache.glob("verl-*.whl"))
    if done.returncode != 0 or not wheels:
        raise ImportError(f"verl's source is not here and pip download verl failed: {done.stderr.strip()[-300:]}")
    import zipfile

    with zipfile.ZipFile(wheels[-1]) as wheel:
        members = [m for m in wheel.namelist() if m.startswith("verl/utils/reward_score/prime_code/")]
        wheel.extractall(cache / "extracted", members)
    return cache / "extracted" / "verl/utils/reward_score/prime_code"


def prime_code_verdicts(items: list[tuple[str, dict[str, list[str]]]], threads: int, prime: Any) -> list[bool]:
    """As verl's default scorer calls it for code data (``continuous=True``): correct when it scores 1."""

    def judge(item: tuple[str, dict[str, list[str]]]) -> bool:
        program, reference = item
        success, _ = prime.compute_score(f"```python\n{program}\n```", dict(reference), continuous=True)
        return success is True or success == 1

    with ThreadPoolExecutor(threads) as pool:
        return list(pool.map(judge, items))


def _process_tree_cpu(verifier: Any) -> float:
    """CPU seconds of this process and of the sandbox's warm zygotes (with every run they reaped)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    total = own.ru_utime + own.ru_stime
    tick = os.sysconf("SC_CLK_TCK")
    pids: set[int] = getattr(getattr(verifier, "sandbox", None), "zygote_pids", set)()
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += sum(int(x) for x in fields[11:15]) / tick
        except (OSError, IndexError, ValueError):
            continue
    return total


def code_stdin_bench(sizes: Sizes) -> list[Row]:
    name = "code stdin/stdout: warm cases"
    quick = sizes.repeats == 1
    programs, cases = (8, 12) if quick else (24, 40)
    items = workload(programs, cases)
    from rewardkit.verifiers.lookup import get_verifier

    threads = 4
    verifier = get_verifier("code", sandbox="local", wall_time=30, workers=threads, partial_credit=False)
    rows: list[Row] = []
    try:
        verifier.verify(*items[0])  # start-up outside the timing
        best: dict[str, float] = {}
        ours: list[Any] = []
        cpu = float("inf")
        for _ in range(sizes.repeats):
            started = time.perf_counter()
            expected = plain_loop(items, threads)
            best["plain"] = min(best.get("plain", float("inf")), time.perf_counter() - started)
            cpu_before, started = _process_tree_cpu(verifier), time.perf_counter()
            ours = verifier.verify_batch(*zip(*items, strict=True))
            seconds = time.perf_counter() - started
            best["ours"] = min(best.get("ours", float("inf")), seconds)
            cpu = min(cpu, _process_tree_cpu(verifier) - cpu_before)
        total = programs * cases
        agree = sum(v.correct == e for v, e in zip(ours, expected, strict=True)) / programs
        zygote = bool(getattr(getattr(verifier, "sandbox", None), "zygote", False))
        rows.append(
            Row(
                name + " vs plain python3 loop",
                "python3 prog.py < case, no isolation",
                total / best["plain"],
                total / best["ours"],
                "cases/s",
                ">= 1.5x",
                best["plain"] / best["ours"] >= 1.5,
                f"{programs} programs ({sum(expected)} right) x {cases} cases, {threads} at a time in both, best of "
                f"{sizes.repeats}; zygote {'on' if zygote else 'OFF'}; verdicts agree on {agree:.0%}; "
                f"{cpu / total * 1e3:.2f} ms of CPU per case in all (host, zygotes and every run)",
            )
        )
        rows.append(_versus_prime_code(verifier, sizes, threads))
    finally:
        verifier.close()
    return rows


def _versus_prime_code(verifier: Any, sizes: Sizes, threads: int) -> Row:
    name, target = "code stdin/stdout: warm cases vs verl prime_code", ">= 5x"
    try:
        prime = load_prime_code()
    except Exception as exc:  # noqa: BLE001 - no source, no network, an import it needs: say so
        return skipped(name, target, f"verl's prime_code could not be loaded: {type(exc).__name__}: {exc}")
    programs, cases = (4, 8) if sizes.repeats == 1 else (12, 10)
    items = workload(programs, cases, seed=1)
    started = time.perf_counter()
    theirs = prime_code_verdicts(items, threads, prime)
    base = time.perf_counter() - started
    started = time.perf_counter()
    ours = verifier.verify_batch(*zip(*items, strict=True))
    mine = time.perf_counter() - started
    agree = sum(v.correct == t for v, t in zip(ours, theirs, strict=True)) / programs
    return Row(
        name,
        "verl prime_code compute_score (continuous)",
        programs / base,
        programs / mine,
        "programs/s",
        target,
        base / mine >= 5.0,
        f"{programs} programs x {cases} cases, {threads} at a time in both; verdicts agree on {agree:.0%}; verl runs "
        "each program in a multiprocessing process with a Manager, then once per case (the first 10) when one fails",
    )
