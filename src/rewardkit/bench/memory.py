"""The memory run: a long mixed scoring run (math, MCQ, code), with the resident memory of the scoring
process and of each verifier worker process read after the first chunk and at the end."""

from __future__ import annotations

import os
from typing import Any

from rewardkit.bench.runs import Row, Sizes
from rewardkit.bench.workloads import MIXED_SPEC, mixed_rows

CHUNK = 500
GROWTH_LIMIT = 0.10  # beyond noise: 10% of the warm size


def rss_mb(pid: int | str = "self") -> tuple[float, float]:
    """(current, peak) resident set size of a process in MB, from /proc (Linux)."""
    fields = {}
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                fields[key] = int(value.split()[0]) / 1024
    return fields.get("VmRSS", 0.0), fields.get("VmHWM", 0.0)


def descendants(pid: int) -> list[int]:
    """Live processes below ``pid``: verifier worker pools, and the local sandbox's warm zygotes (each under
    its bubblewrap or unshare launcher)."""
    parents: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    stat = fh.read()
            except OSError:
                continue
            parents.setdefault(int(stat.rpartition(")")[2].split()[1]), []).append(int(entry))
    out, todo = [], list(parents.get(pid, []))
    while todo:
        child = todo.pop()
        out.append(child)
        todo.extend(parents.get(child, []))
    return sorted(out)


def _name(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            argv = fh.read().split(b"\0")
    except OSError:
        return "?"
    exe = os.path.basename(argv[0].decode(errors="replace"))
    if not exe.startswith("python"):
        return exe or "?"  # e.g. bwrap, the launcher a warm zygote runs under
    script = next((a for a in argv[1:] if a.endswith(b".py")), argv[0])
    return os.path.basename(script.decode(errors="replace")) or "?"


def _snapshot() -> dict[Any, tuple[float, float]]:
    snap: dict[Any, tuple[float, float]] = {"scoring": rss_mb()}
    for pid in descendants(os.getpid()):
        try:
            snap[pid] = rss_mb(pid)
            _NAMES.setdefault(pid, _name(pid))
        except OSError:
            continue
    return snap


_NAMES: dict[int, str] = {}


def memory_bench(sizes: Sizes) -> list[Row]:
    from rewardkit.rewards.api import build_reward
    from rewardkit.scoring.batch_scoring import score_rows

    name = "memory: mixed run"
    target = f"growth <= {GROWTH_LIMIT:.0%}"
    if not os.path.exists("/proc/self/status"):
        return [Row(name, "-", None, None, "", target, None, "skipped: needs /proc (Linux)")]
    rows = mixed_rows(sizes.memory_samples, sizes.memory_code_share, seed=11)
    reward = build_reward(MIXED_SPEC)
    with reward:
        score_rows(reward, rows[:CHUNK], batch_size=64)
        start = _snapshot()
        for offset in range(CHUNK, len(rows), CHUNK):
            score_rows(reward, rows[offset : offset + CHUNK], batch_size=64)
        end = _snapshot()
    workers = [pid for pid in start if pid != "scoring" and pid in end]
    growth = {key: (end[key][0] - start[key][0]) / start[key][0] for key in ["scoring", *workers]}
    worst = max(growth.values())
    code = round(sizes.memory_samples * sizes.memory_code_share)
    detail = "; ".join(f"{_NAMES.get(pid, '?')} (pid {pid}): {_span(start[pid], end[pid])}" for pid in workers)
    note = (
        f"{sizes.memory_samples} samples ({code} code, the rest math and MCQ), RSS after the first {CHUNK} "
        f"-> end: scoring process {_span(start['scoring'], end['scoring'])}; "
        f"{detail or 'no worker processes alive at both points'} (processes alive at both points: worker pools "
        f"and warm zygotes; a run's own processes live for that run only)"
    )
    return [
        Row(
            name,
            "RSS after first chunk",
            start["scoring"][0],
            end["scoring"][0],
            "MB (scoring process)",
            target,
            worst <= GROWTH_LIMIT,
            note,
        )
    ]


def _span(start: tuple[float, float], end: tuple[float, float]) -> str:
    return f"{start[0]:.0f} -> {end[0]:.0f} MB (peak {start[1]:.0f} -> {end[1]:.0f})"
