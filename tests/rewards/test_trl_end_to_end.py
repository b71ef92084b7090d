"""A few real GRPOTrainer steps on a tiny local Llama model with a composed rewardkit reward."""

from __future__ import annotations

import math

import pytest

import rewardkit as rk
from reward_helpers import SPY_CALLS, require_module, tiny_grpo_config

pytestmark = [pytest.mark.train, pytest.mark.usefixtures("test_plugin")]

SPEC = {
    "name": "rk_reward",
    "combine": "sum",
    "terms": [
        "math_accuracy",
        {"reward": "tag_format", "weight": 0.5, "params": {"strict": False}},
        {"reward": "soft_overlong", "params": {"max_length": 8, "cache": 4}},  # tokens, from completion_ids
        {"reward": "spy"},
    ],
}
QUESTIONS = [("What is 2 + 3?", "5"), ("What is 10 - 4?", "6"), ("Compute 3 * 3.", "9"), ("Half of 8?", "4")]


def run_grpo(tmp_path, ci_require, conversational: bool, use_async: bool = False):
    require_module(ci_require, "trl", "trl (train extra) for GRPOTrainer")
    datasets = require_module(ci_require, "datasets", "datasets (train extra)")
    from trl import GRPOTrainer

    from rewardkit.train.tiny_model import build_tiny_model

    model_dir = build_tiny_model(tmp_path / "tiny")
    rows = [
        {"prompt": [{"role": "user", "content": q}] if conversational else q, "answer": a, "level": i % 2}
        for i, (q, a) in enumerate(QUESTIONS)
    ]
    reward = rk.build_reward(SPEC)
    config = tiny_grpo_config(tmp_path / "out", learning_rate=1e-4)
    trainer = GRPOTrainer(
        model=str(model_dir),
        reward_funcs=[reward.as_async() if use_async else reward],
        args=config,
        train_dataset=datasets.Dataset.from_list(rows),
        processing_class=None,
    )
    SPY_CALLS.clear()
    try:
        trainer.train()
    finally:
        reward.close()
    return trainer.state.log_history


@pytest.mark.parametrize(
    ("conversational", "use_async"),
    [(False, False), (True, False), (False, True)],
    ids=["plain", "conversational", "plain-async"],
)
def test_grpo_steps_with_composed_reward(tmp_path, ci_require, conversational, use_async):
    history = run_grpo(tmp_path, ci_require, conversational, use_async)
    logs = [entry for entry in history if "rewards/rk_reward/mean" in entry]
    assert len(logs) == 2  # one log per step
    for entry in logs:
        total = entry["rewards/rk_reward/mean"]
        parts = {k: entry[f"rewards/rk_reward/{k}/mean"] for k in ("math_accuracy", "tag_format", "soft_overlong")}
        assert 0.0 <= parts["math_accuracy"] <= 1.0 and 0.0 <= parts["tag_format"] <= 1.0
        assert -1.0 <= parts["soft_overlong"] < 0.0  # 12-token budget past an 8-token limit
        spy = entry["rewards/rk_reward/spy/mean"]
        assert math.isclose(
            total, parts["math_accuracy"] + 0.5 * parts["tag_format"] + parts["soft_overlong"] + spy, abs_tol=1e-5
        )
    assert len(SPY_CALLS) >= 2
    call = SPY_CALLS[0]
    assert {"completion_ids", "trainer_state", "log_metric", "log_extra", "answer", "level"} <= set(call["kwargs"])
    completion = call["completions"][0]
    if conversational:
        assert isinstance(completion, list) and completion[0]["role"] == "assistant"
    else:
        assert isinstance(completion, str)
    assert len(call["completions"]) == 4


@pytest.mark.slow
def test_train_trl_example_runs_with_cpu_switch_and_logs_components_per_sample(tmp_path, ci_require):
    """examples/train_trl.py --cpu on a tiny local model: no bf16, and TRL's completions table gets each
    completion's component values and verdict status through log_extra."""
    require_module(ci_require, "trl", "trl (train extra) for GRPOTrainer")
    require_module(ci_require, "datasets", "datasets (train extra)")
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "examples" / "train_trl.py"
    spec = importlib.util.spec_from_file_location("train_trl_example", path)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    assert example.parse_args([]).cpu is False and example.use_bf16(cpu=True) is False
    model_dir = _tiny_model_as_docs_build_it(tmp_path)
    out = tmp_path / "out"
    trainer = example.main(
        [
            "--cpu",
            "--model",
            str(model_dir),
            "--steps",
            "1",
            "--output-dir",
            str(out),
            "--plain",
            "--batch-size",
            "4",
            "--num-generations",
            "4",
            "--max-completion-length",
            "8",
        ]
    )
    assert trainer.args.use_cpu and not trainer.args.bf16
    assert (out / "config.json").is_file()
    extra = {k: list(v) for k, v in trainer._logs["extra"].items()}
    n = len(trainer._logs["completion"])
    for column in (
        "math_reward/math_accuracy",
        "math_reward/tag_format",
        "math_reward/soft_overlong",
        "math_reward/math_accuracy/status",
    ):
        assert column in extra and len(extra[column]) == n, (column, sorted(extra))
    assert set(extra["math_reward/math_accuracy"]) <= {0.0, 1.0, None}
    assert all(-1.0 <= v <= 0.0 for v in extra["math_reward/soft_overlong"])
    assert set(extra["math_reward/math_accuracy/status"]) <= {s.value for s in rk.Status}


def _tiny_model_as_docs_build_it(tmp_path):  # type: ignore[no-untyped-def]
    """The model docs/trl.md tells the reader to build before `--model ./tiny-model`, built by that command."""
    import re
    import shlex
    import subprocess
    import sys
    from pathlib import Path

    page = (Path(__file__).resolve().parents[2] / "docs" / "trl.md").read_text()
    line = re.search(r"^python (-m rewardkit\.train\.tiny_model .*?)\s+#", page, re.MULTILINE)
    assert line, "docs/trl.md no longer says how to build ./tiny-model"
    argv = shlex.split(line.group(1))
    assert argv[-1] == "./tiny-model" and "--model ./tiny-model" in page
    done = subprocess.run([sys.executable, *argv], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "tiny-model" / "config.json").is_file() and "wrote a tiny Llama" in done.stdout
    return tmp_path / "tiny-model"
