"""PNG plots of a run: reward curves, zero-variance fraction, per-module update heat map."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rewardkit._jsonl import read_jsonl


def read_log(path: Path) -> list[dict[str, Any]]:
    """The rows of a run's JSONL log; none when the run did not write it."""
    if not path.is_file():
        return []
    return list(read_jsonl(path))


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def smooth(values: list[float], window: int) -> list[float]:
    out, acc = [], []
    for v in values:
        acc.append(v)
        if len(acc) > window:
            acc.pop(0)
        finite = [x for x in acc if not math.isnan(x)]
        out.append(sum(finite) / len(finite) if finite else math.nan)
    return out


def reward_panel(ax: Any, metrics: list[dict[str, Any]], evals: list[dict[str, Any]]) -> None:
    """Training reward (raw and moving average; components when there are several) and greedy evaluations."""
    steps = [m["step"] for m in metrics]
    window = max(1, len(metrics) // 12)
    labels = sorted({k.split("/")[1] for m in metrics for k in m if k.startswith("reward/") and k.count("/") == 2})
    total = [m["reward/mean"] for m in metrics]
    ax.plot(steps, total, color="tab:blue", alpha=0.25, lw=1)
    ax.plot(steps, smooth(total, window), color="tab:blue", lw=2, label="train reward (sampled)")
    if len(labels) > 1:
        for i, label in enumerate(labels):
            ax.plot(
                steps,
                smooth([m.get(f"reward/{label}/mean", math.nan) for m in metrics], window),
                color=["tab:cyan", "tab:gray", "black", "tab:olive"][i % 4],
                label=f"train {label}",
                alpha=0.8,
            )
    eval_keys = sorted({k for e in evals for k in e if k.startswith(("eval/", "eval_train/"))})
    if len(labels) <= 1:
        eval_keys = [k for k in eval_keys if k.endswith("/reward")]
    colours = ["tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown", "tab:pink", "tab:olive"]
    for i, key in enumerate(eval_keys):
        where = "held-out prompts" if key.startswith("eval/") else "training prompts"
        points = [(e["step"], e[key]) for e in evals if key in e]
        name = key.split("/", 1)[1]
        ax.plot(
            [p[0] for p in points],
            [p[1] for p in points],
            "o--",
            color=colours[i % len(colours)],
            label=f"greedy {name}, {where}",
        )
    ax.set_xlabel("step")
    ax.set_ylabel("reward")
    ax.set_title(f"reward (line: moving average over {window} steps)")
    ax.legend(fontsize=7)


def zero_variance_panel(ax: Any, metrics: list[dict[str, Any]]) -> None:
    steps = [m["step"] for m in metrics]
    window = max(1, len(metrics) // 20)
    ax.plot(steps, smooth([m["zero_variance_frac"] for m in metrics], window), color="tab:red")
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("step")
    ax.set_ylabel("fraction of groups")
    ax.set_title("groups with zero reward variance (no signal)")


def heatmap_panel(ax: Any, norms: list[dict[str, Any]], field: str = "update_norm") -> None:
    if not norms:
        ax.set_axis_off()
        return
    modules = sorted(norms[0]["modules"], key=_module_order)
    grid = [[row["modules"].get(m, {}).get(field, 0.0) for row in norms] for m in modules]
    image = ax.imshow(
        grid,
        aspect="auto",
        interpolation="nearest",
        cmap="viridis",
        extent=(norms[0]["step"] - 0.5, norms[-1]["step"] + 0.5, len(modules) - 0.5, -0.5),
    )
    ax.set_yticks(range(len(modules)))
    ax.set_yticklabels([_short(m) for m in modules], fontsize=6)
    ax.set_xlabel("step")
    ax.set_title(f"per-module {field.replace('_', ' ')}")
    ax.figure.colorbar(image, ax=ax)


def _module_order(name: str) -> tuple[int, str]:
    from rewardkit.train.lora import layer_index

    idx = layer_index(name)
    return (-1 if idx is None else idx, name)


def _short(name: str) -> str:
    from rewardkit.train.lora import layer_index

    idx = layer_index(name)
    return f"L{idx}.{name.split('.')[-1]}" if idx is not None else name


def plot_run(run_dir: str | Path) -> list[Path]:
    """Write reward.png, zero_variance.png, module_updates.png and summary.png into ``run_dir/plots``."""
    plt = _pyplot()
    run_dir = Path(run_dir)
    metrics = read_log(run_dir / "metrics.jsonl")
    evals = read_log(run_dir / "eval.jsonl")
    norms = read_log(run_dir / "module_norms.jsonl")
    if not metrics:
        return []
    out_dir = run_dir / "plots"
    out_dir.mkdir(exist_ok=True)
    written = []
    draw: Callable[[Any], None]
    for name, draw in (
        ("reward.png", lambda ax: reward_panel(ax, metrics, evals)),
        ("zero_variance.png", lambda ax: zero_variance_panel(ax, metrics)),
        ("module_updates.png", lambda ax: heatmap_panel(ax, norms)),
    ):
        fig, ax = plt.subplots(figsize=(7, 4))
        draw(ax)
        fig.tight_layout()
        fig.savefig(out_dir / name, dpi=100)
        plt.close(fig)
        written.append(out_dir / name)
    fig, axes = plt.subplots(1, 3, figsize=(18, 4.5))
    reward_panel(axes[0], metrics, evals)
    zero_variance_panel(axes[1], metrics)
    heatmap_panel(axes[2], norms)
    fig.tight_layout()
    fig.savefig(out_dir / "summary.png", dpi=90)
    plt.close(fig)
    written.append(out_dir / "summary.png")
    return written


def plot_sweep(results: dict[int, list[dict[str, Any]]], path: Path) -> Path:
    """Reward and zero-variance fraction per step, one line per group size."""
    plt = _pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(12, 4))
    for group_size, metrics in sorted(results.items()):
        steps = [m["step"] for m in metrics]
        window = max(1, len(metrics) // 10)
        axes[0].plot(steps, smooth([m["reward/mean"] for m in metrics], window), label=f"G={group_size}")
        axes[1].plot(steps, smooth([m["zero_variance_frac"] for m in metrics], window), label=f"G={group_size}")
    axes[0].set_title("mean reward")
    axes[1].set_title("zero-variance group fraction")
    for ax in axes:
        ax.set_xlabel("step")
        ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
