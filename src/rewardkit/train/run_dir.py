"""The run's output directory: refuse to mix two runs in one, clear a run for --overwrite, cut the logs
back to a checkpoint on resume."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from rewardkit._errors import ConfigError
from rewardkit._jsonl import read_jsonl

LOGS = ("metrics.jsonl", "eval.jsonl", "samples.jsonl", "module_norms.jsonl")
RUN_OUTPUTS = (
    *LOGS,
    "summary.json",
    "plots",
    "final",
    "final-teacher",
    "tensorboard",
    "wandb",
    "checkpoint-*",
    "warmed-up-model-*",
    "warmup-*.json",
)


def prepare_output_dir(output_dir: str | Path, *, resume: bool, overwrite: bool) -> None:
    """A fresh run needs an empty (or missing) ``output_dir``; ``overwrite`` first removes what a previous
    run wrote there (other files stay); a resumed run continues in place."""
    path = Path(output_dir)
    if resume and overwrite:
        raise ConfigError("--resume continues the run in output_dir and --overwrite replaces it; give one")
    if resume or not path.exists():
        return
    if not path.is_dir():
        raise ConfigError(f"output_dir {str(path)!r} exists and is not a directory")
    if overwrite:
        for pattern in RUN_OUTPUTS:
            for found in path.glob(pattern):
                if found.is_dir():
                    shutil.rmtree(found)
                else:
                    found.unlink()
    entries = sorted(p.name for p in path.iterdir())
    if entries and not overwrite:
        shown = ", ".join(entries[:6]) + (", ..." if len(entries) > 6 else "")
        raise ConfigError(
            f"output_dir {str(path)!r} is not empty ({shown}); a new run there would mix its metrics and plots "
            f"with the old ones. Pass --resume latest to continue that run, --overwrite to replace its "
            f"outputs, or --output-dir for a new directory"
        )


def cut_logs_to(output_dir: Path, step: int) -> list[dict[str, Any]]:
    """Drop log rows after ``step`` (a run that died after its last checkpoint logged steps that the
    resumed run trains again); return the kept metric and evaluation rows, in step order."""
    kept: list[dict[str, Any]] = []
    for name in LOGS:
        path = output_dir / name
        if not path.is_file():
            continue
        rows = list(read_jsonl(path))
        rows = [r for r in rows if int(r.get("step", 0)) <= step]
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
        if name in ("metrics.jsonl", "eval.jsonl"):
            kept.extend(rows)
    kept.sort(key=lambda r: (r.get("step", 0), "eval/reward" not in r and "eval_train/reward" not in r))
    return kept
