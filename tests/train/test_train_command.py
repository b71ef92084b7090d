"""``rewardkit train``: the output directory guard, resume past the end, the progress bar, trackers, and
the message a core install (no torch) gets."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from train_helpers import small_config

from rewardkit.cli import main
from rewardkit.train.config import load_config

SRC = Path(__file__).resolve().parents[2] / "src"


def _config(tmp_path: Path, student_dir: Path, **sections) -> Path:
    path = tmp_path / "run.yaml"
    config = small_config(tmp_path / "out", student_dir, data={"eval_size": 0}, **sections)
    path.write_text(yaml.safe_dump(config))
    return path


def _steps(path: Path) -> list[int]:
    return [json.loads(line)["step"] for line in path.read_text().splitlines()]


def train(*args: str):
    return CliRunner().invoke(main, ["train", *args])


def test_a_non_empty_output_dir_needs_resume_or_overwrite(tmp_path, student_dir):
    config = _config(tmp_path, student_dir)
    out = tmp_path / "out"
    first = train("--config", str(config), "--no-progress")
    assert first.exit_code == 0, first.output
    (out / "notes.txt").write_text("mine")
    again = train("--config", str(config), "--no-progress")
    assert again.exit_code != 0
    flat = " ".join(again.output.split())
    assert "is not empty" in flat and "--resume latest" in flat and "--overwrite" in flat
    assert _steps(out / "metrics.jsonl") == [1, 2]  # the refused run wrote nothing
    both = train("--config", str(config), "--overwrite", "--resume", "latest")
    assert both.exit_code != 0 and "give one" in both.output
    replaced = train("--config", str(config), "--overwrite", "--no-progress")
    assert replaced.exit_code == 0, replaced.output
    assert _steps(out / "metrics.jsonl") == [1, 2]  # not appended to the old run's rows
    assert (out / "notes.txt").read_text() == "mine"  # files the trainer did not write stay


def test_resume_continues_to_the_new_total_and_refuses_a_finished_run(tmp_path, student_dir):
    config = _config(tmp_path, student_dir)
    out = tmp_path / "out"
    nothing = train("--config", str(config), "--resume", "latest", "--no-progress")
    assert nothing.exit_code != 0 and "no checkpoint-* directory" in " ".join(nothing.output.split())
    assert train("--config", str(config), "--no-progress").exit_code == 0
    done = train("--config", str(config), "--resume", "latest", "--no-progress")
    assert done.exit_code != 0
    assert "checkpoint is at step 2 and the run is set to 2 steps in total, so there is nothing to train" in " ".join(
        done.output.split()
    )
    more = train("--config", str(config), "--resume", "latest", "--steps", "3", "--no-progress")
    assert more.exit_code == 0, more.output
    assert _steps(out / "metrics.jsonl") == [1, 2, 3]
    assert json.loads((out / "summary.json").read_text())["steps"] == 3  # the whole run, not the last step


def test_resume_drops_log_rows_written_after_the_checkpoint(tmp_path, student_dir):
    config = _config(tmp_path, student_dir, logging={"plots": False, "save_every": 1})
    out = tmp_path / "out"
    assert train("--config", str(config), "--steps", "3", "--no-progress").exit_code == 0
    for step in (2, 3):  # as if the run had died after logging step 3 with only checkpoint-1 saved
        shutil.rmtree(out / f"checkpoint-{step}")
    result = train("--config", str(config), "--steps", "3", "--resume", "latest", "--no-progress")
    assert result.exit_code == 0, result.output
    assert _steps(out / "metrics.jsonl") == [1, 2, 3]


def test_progress_bar_shows_step_reward_accuracy_and_speed(tmp_path, student_dir):
    config = _config(tmp_path, student_dir, rewards=[{"name": "math_accuracy", "params": {"timeout": 20}}])
    result = train("--config", str(config))
    assert result.exit_code == 0, result.output
    flat = " ".join(result.output.split())
    assert "train" in flat and "2/2" in flat and "reward" in flat and "s/step" in flat and "ETA" in flat
    assert "acc 0." in flat or "acc 1." in flat  # math_accuracy's mean is shown as the accuracy


def test_report_to_tensorboard_writes_the_step_metrics(tmp_path, student_dir, ci_require):
    try:
        from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    except ImportError:
        ci_require(False, "tensorboard (dev extra) is not installed")
        raise
    config = _config(tmp_path, student_dir, logging={"plots": False, "report_to": "tensorboard"})
    assert train("--config", str(config), "--no-progress").exit_code == 0
    events = EventAccumulator(str(tmp_path / "out" / "tensorboard"))
    events.Reload()
    rewards = events.Scalars("reward/mean")
    logged = [json.loads(line)["reward/mean"] for line in (tmp_path / "out" / "metrics.jsonl").read_text().splitlines()]
    assert [e.step for e in rewards] == [1, 2]
    assert [e.value for e in rewards] == pytest.approx(logged)


def test_report_to_names_a_missing_or_unknown_tracker(tmp_path, student_dir, monkeypatch):
    with pytest.raises(Exception, match="unknown tracker.*'mlflow'"):
        load_config(small_config(tmp_path, student_dir, logging={"report_to": ["mlflow"]}))
    monkeypatch.setitem(sys.modules, "wandb", None)  # `import wandb` fails here whether or not it is installed
    config = _config(tmp_path, student_dir, logging={"plots": False, "report_to": ["wandb"]})
    result = train("--config", str(config), "--no-progress")
    assert result.exit_code != 0
    assert "'wandb' needs the wandb package, which is not installed: pip install wandb" in result.output


BLOCK_TORCH = """
import importlib.abc, sys

class BlockTorch(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "torch" or name.startswith("torch."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, BlockTorch())
"""


def test_core_install_without_torch_gets_the_install_line(tmp_path, student_dir):
    blocker = tmp_path / "site"
    blocker.mkdir()
    (blocker / "sitecustomize.py").write_text(BLOCK_TORCH)
    config = _config(tmp_path, student_dir)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(blocker), str(SRC)])}
    probe = subprocess.run([sys.executable, "-c", "import torch"], check=False, env=env, capture_output=True, text=True)
    assert probe.returncode != 0 and "No module named 'torch'" in probe.stderr  # the blocker works
    for command in (["train", "--config", str(config)], ["group-size-sweep", "--config", str(config)]):
        done = subprocess.run(
            [sys.executable, "-m", "rewardkit.cli", *command],
            check=False,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 1, done.stderr
        assert "pip install -e '.[train]' in a rewardkit checkout" in done.stderr
        assert "No module named 'torch'" in done.stderr
        assert "Traceback" not in done.stderr
    assert not (tmp_path / "out").exists()
