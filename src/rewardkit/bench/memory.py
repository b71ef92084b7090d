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


def children(pid: int) -> list[int]:
    """Live processes whose parent is ``pid`` (the verifier worker pools)."""
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    stat = fh.read()
            except OSError:
                continue
            if int(stat.rpartition(")")[2].split()[1]) == pid:
                out.append(int(entry))
    return out


def _snapshot() -> dict[Any, tuple[float, float]]:
    snap: dict[Any, tuple[float, float]] = {"scoring": rss_mb()}
    for pid in children(os.getpid()):
        try:
            snap[pid] = rss_mb(pid)
        except OSError:
            continue
    return snap


def memory_bench(sizes: Sizes) -> list[Row]:
    from rewardkit.scoring.batch_scoring import score_rows
    from rewardkit.scoring.build import build_reward

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
    detail = "; ".join(f"worker {pid}: {_span(start[pid], end[pid])}" for pid in workers)
    note = (
        f"{sizes.memory_samples} samples ({code} code, the rest math and MCQ), RSS after the first {CHUNK} "
        f"-> end: scoring process {_span(start['scoring'], end['scoring'])}; "
        f"{detail or 'no worker processes alive at both points'} (sandbox processes live for one run each)"
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
