"""The figures docs/training.md quotes, computed from a recorded run and rendered as the page's markdown.

``grpo_demo.py --record NAME`` stores ``figures(...)`` in ``docs/img/NAME.json`` and rewrites the page's block
between ``<!-- figures:NAME -->`` and ``<!-- /figures:NAME -->`` with ``render(...)``; a test renders the
stored figures again and checks the page holds exactly that, so every number there comes from the recording.
"""

from __future__ import annotations

import json
import re
import statistics
from pathlib import Path
from typing import Any

WINDOW = 20
PAGE = Path(__file__).resolve().parents[1] / "docs" / "training.md"


def _mean(rows: list[dict[str, Any]], key: str) -> float:
    values = [r[key] for r in rows if key in r]
    return sum(values) / len(values) if values else float("nan")


def figures(out_dir: Path, history: list[dict[str, Any]], wall_seconds: float, cpu_seconds: float) -> dict[str, Any]:
    """The page's figures of one run: reward windows, evaluations, diagnostics, warm-up and time."""
    from rewardkit.train.diagnostics import per_kind, per_layer

    steps = [h for h in history if "reward/mean" in h]
    first, last = steps[:WINDOW], steps[-WINDOW:]
    task = "task_reward/mean" if any("task_reward/mean" in h for h in steps) else "reward/mean"
    windows = [_mean(steps[i : i + WINDOW], task) for i in range(0, len(steps), WINDOW)]
    evals = [h for h in history if "eval/reward" in h]
    times = [h["time/step_s"] for h in steps]
    out: dict[str, Any] = {
        "steps": len(steps),
        "windows": [round(w, 3) for w in windows],
        "evals": [
            [e["step"], round(e["eval_train/math_accuracy"], 3), round(e["eval/math_accuracy"], 2)] for e in evals
        ],
        "zero_variance_pct": [round(100 * _mean(rows, "zero_variance_frac"), 1) for rows in (first, last)],
        "clip_pct": [round(100 * _mean(rows, "clip_fraction"), 2) for rows in (first, last)],
        "clip_max_pct": round(100 * max(h["clip_fraction"] for h in steps), 1),
        "entropy": [round(_mean(rows, "entropy"), 2) for rows in (first, last)],
        "length": [
            round(min(h["completion_length/mean"] for h in steps), 1),
            round(max(h["completion_length/mean"] for h in steps), 1),
        ],
        "eos_pct": [round(100 * _mean(rows, "terminated_frac")) for rows in (first, last)],
        "wall_s": round(wall_seconds),
        "cpu_s": round(cpu_seconds),
        "grpo_s": round(sum(times)),
        "step_median_s": round(statistics.median(times), 2),
    }
    norms = out_dir / "module_norms.jsonl"
    if norms.is_file():
        final = json.loads(norms.read_text().splitlines()[-1])["modules"]
        out["delta_by_layer"] = {k: round(v, 1) for k, v in per_layer(final, "delta_norm").items()}
        out["delta_by_kind"] = {k: round(v, 1) for k, v in per_kind(final, "delta_norm").items()}
    if any("teacher/iw_mean" in h for h in steps):
        out["teacher"] = {
            "iw_mean": [round(_mean(rows, "teacher/iw_mean"), 2) for rows in (steps[:10], steps[-10:])],
            "iw_clipped_max_pct": round(100 * max(h["teacher/iw_clipped_frac"] for h in steps), 1),
            "logprob": [round(steps[0]["teacher/logprob_mean"], 2), round(steps[-1]["teacher/logprob_mean"], 2)],
            "zero_variance_total_vs_task_pct": [
                round(100 * _mean(steps, "zero_variance_frac"), 1),
                round(100 * _mean(steps, "reward/math_accuracy/zero_variance_frac"), 1),
            ],
        }
    warmup = out_dir / "warmup-policy.json"
    if warmup.is_file():
        w = json.loads(warmup.read_text())
        out["warmup"] = [w["steps"], round(w["loss_first"], 2), round(w["loss_last"], 2)]
    return out


def render(name: str, f: dict[str, Any]) -> str:
    """The page's markdown for the figures of run ``name``."""
    evals = f["evals"]
    best_train = max(evals, key=lambda e: e[1])
    best_held = max(e[2] for e in evals)
    held_steps = ", ".join(str(e[0]) for e in evals if e[2] == best_held)
    best_window = max(range(len(f["windows"])), key=lambda i: f["windows"][i])
    lo, hi = best_window * WINDOW + 1, (best_window + 1) * WINDOW
    n = f["steps"]
    lines = [
        "| measure | start | end | best seen |",
        "|---|---|---|---|",
        f"| sampled task reward (math_accuracy, mean of {WINDOW}-step windows: first / last) | "
        f"{f['windows'][0]:.3f} | {f['windows'][-1]:.3f} | {f['windows'][best_window]:.3f} (steps {lo}-{hi}) |",
        f"| greedy accuracy, training prompts (step 0 / step {n}) | {evals[0][1]:.3f} | {evals[-1][1]:.3f} | "
        f"{best_train[1]:.3f} (step {best_train[0]}) |",
        f"| greedy accuracy, held-out prompts (step 0 / step {n}) | {evals[0][2]:.2f} | {evals[-1][2]:.2f} | "
        f"{best_held:.2f} (step{'s' if ',' in held_steps else ''} {held_steps}) |",
        "",
        f"- {WINDOW}-step window means of the sampled task reward: {', '.join(f'{w:.3f}' for w in f['windows'])}.",
        "- Greedy evaluations (step: training / held-out): "
        + ", ".join(f"{e[0]}: {e[1]:.3f}/{e[2]:.2f}" for e in evals)
        + ".",
    ]
    if "warmup" in f:
        steps, first, last = f["warmup"]
        lines.append(f"- Warm-up: {steps} supervised steps, cross-entropy {first:.2f} -> {last:.2f}.")
    lines += [
        f"- Zero-variance groups: {f['zero_variance_pct'][0]} % over the first {WINDOW} steps, "
        f"{f['zero_variance_pct'][1]} % over the last {WINDOW}. Clip fraction: {f['clip_pct'][0]} % / "
        f"{f['clip_pct'][1]} % of tokens (at most {f['clip_max_pct']} % in a step). Entropy: "
        f"{f['entropy'][0]} / {f['entropy'][1]} nats a token. Completion length {f['length'][0]}-{f['length'][1]} "
        f"tokens; {f['eos_pct'][0]} % / {f['eos_pct'][1]} % end with EOS.",
    ]
    if "delta_by_layer" in f:
        layers = ", ".join(f"{k} {v}" for k, v in f["delta_by_layer"].items())
        kinds = ", ".join(
            f"{k.removesuffix('_proj')} {v}" for k, v in sorted(f["delta_by_kind"].items(), key=lambda kv: -kv[1])
        )
        lines.append(
            f"- LoRA weight change `scale * B @ A` at the end (`delta_norm`): by layer {layers}; by kind {kinds}."
        )
    if "teacher" in f:
        t = f["teacher"]
        lines.append(
            f"- Teacher: importance weights {t['iw_mean'][0]} over the first 10 steps and {t['iw_mean'][1]} over "
            f"the last 10 (at most {t['iw_clipped_max_pct']} % of tokens clipped); its mean log-probability of "
            f"the student's tokens {t['logprob'][0]} -> {t['logprob'][1]}; zero-variance groups of the total "
            f"reward {t['zero_variance_total_vs_task_pct'][0]} % against {t['zero_variance_total_vs_task_pct'][1]} % "
            "of the task reward."
        )
    lines.append(
        f"- Time: {f['wall_s']} s wall clock, {f['grpo_s']} s of it in the {n} steps (median step "
        f"{f['step_median_s']} s), {f['cpu_s']} s of CPU (user + system)."
    )
    return f"<!-- figures:{name} -->\n" + "\n".join(lines) + f"\n<!-- /figures:{name} -->"


def block_pattern(name: str) -> re.Pattern[str]:
    return re.compile(rf"<!-- figures:{re.escape(name)} -->.*?<!-- /figures:{re.escape(name)} -->", re.DOTALL)


def write_page(name: str, f: dict[str, Any], page: Path = PAGE) -> None:
    """Replace the page's block for ``name`` with the figures rendered anew."""
    text = page.read_text()
    if not block_pattern(name).search(text):
        raise SystemExit(f"{page} has no <!-- figures:{name} --> block to fill")
    page.write_text(block_pattern(name).sub(lambda _: render(name, f), text))
