"""Run a training example and record its figures and plots under docs/img/ (used for docs/training.md).

    python examples/grpo_demo.py --config examples/grpo_arithmetic.yaml --record grpo_arithmetic
    python examples/grpo_demo.py --config examples/codistill_arithmetic.yaml --record codistill_arithmetic

Equivalent to ``rewardkit train --config ...`` plus the copy of the plots and of a result summary.
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import shutil
import sys
import time
from pathlib import Path

from rewardkit.cli.train import make_trainer, summarise_history
from rewardkit.train.config import load_config


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="examples/grpo_arithmetic.yaml")
    parser.add_argument("--record", help="write docs/img/<NAME>*.png and docs/img/<NAME>.json")
    args = parser.parse_args()
    config = load_config(args.config)
    started = time.time()
    trainer = make_trainer(config)
    history = trainer.train()
    wall = time.time() - started
    summary = summarise_history(history)
    summary.update(
        {
            "config": args.config,
            "wall_seconds": round(wall, 1),
            "machine": platform.machine(),
            "evals": [h for h in history if any(k.startswith("eval") for k in h)],
        }
    )
    out = Path(config.output_dir)
    warmup = out / "warmup-policy.json"
    if warmup.is_file():
        summary["warmup"] = json.loads(warmup.read_text())
    print(json.dumps({k: v for k, v in summary.items() if k != "evals"}, indent=2))
    for row in summary["evals"]:
        print(" ".join(f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}" for k, v in row.items()))
    if args.record:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        import training_figures

        used = resource.getrusage(resource.RUSAGE_SELF)
        cpu = used.ru_utime + used.ru_stime
        summary["page"] = training_figures.figures(out, history, wall, cpu)
        training_figures.write_page(args.record, summary["page"])
        img = Path("docs/img")
        img.mkdir(parents=True, exist_ok=True)
        for name in ("summary", "reward", "zero_variance", "module_updates"):
            src = out / "plots" / f"{name}.png"
            if src.is_file():
                shutil.copy(src, img / f"{args.record}_{name}.png")
        (img / f"{args.record}.json").write_text(json.dumps(summary, indent=2, default=str))


if __name__ == "__main__":
    main()
