"""examples/plugin, pip-installed into a temporary target: its names are listed by `rewardkit plugins --json`
and work from a fresh interpreter with no import by hand."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from plugin_dists import plugins_json, require, run_python

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "plugin"


@pytest.fixture(scope="module")
def example_target(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pip = subprocess.run([sys.executable, "-m", "pip", "--version"], check=False, capture_output=True)
    require(pip.returncode == 0, "pip is not available in this interpreter")
    root = tmp_path_factory.mktemp("example-plugin")
    source = root / "src"  # a copy: building in place would leave build/ and *.egg-info in the checkout
    shutil.copytree(EXAMPLE, source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    target = root / "site"
    cmd = [
        sys.executable,
        "-m",
        "pip",
        "install",
        "--quiet",
        "--no-deps",
        "--no-build-isolation",
        "--no-index",
        "--disable-pip-version-check",
        "--target",
        str(target),
        str(source),
    ]
    done = subprocess.run(cmd, check=False, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"pip install failed:\n{done.stdout}\n{done.stderr}"
    return target


def test_the_plugins_command_lists_what_the_example_registers(example_target):
    rows = {row["name"]: row for row in plugins_json(example_target)}
    example = rows["example"]
    assert example["source"] == "entry point"
    assert example["distribution"] == "rewardkit-example-plugin"
    assert example["version"] == "0.1.0"
    assert example["hooks"] == ["register_combinators", "register_rewards", "register_verifiers"]
    assert example["registered"] == {"verifier": ["exact_text"], "reward": ["brevity"], "combinator": ["harmonic_mean"]}
    assert "example" not in {row["name"] for row in plugins_json()}  # present only where it is installed


USE_EXAMPLE = """
import json, sys
import rewardkit as rk

verifier = rk.get_verifier("exact_text")
strict = rk.get_verifier("exact_text", case_sensitive=True)
spec = {"combine": "harmonic_mean", "terms": [
    {"reward": "verifier_accuracy", "verifier": "exact_text"},
    {"reward": "brevity", "weight": 4.0},
]}
with rk.build_reward(spec) as reward:
    combined = reward(prompts=["q"] * 3, completions=["Paris", "Lyon", "paris"], answer=["paris"] * 3)
print(json.dumps({
    "scores": [verifier.verify(" Paris ", "paris").score, strict.verify("Paris", "paris").score,
               verifier.verify("   ", "paris").status],
    "brevity": rk.get_reward("brevity")(["q", "q"], ["", "abc"]),
    "combined": combined,
    "loaded": "rewardkit_example_plugin" in sys.modules,
}))
"""


def test_the_example_verifier_reward_and_combinator_work_by_name(example_target):
    done = run_python(USE_EXAMPLE, example_target)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["scores"] == [1.0, 0.0, "no_answer"]
    assert result["brevity"] == [1.0, 0.25]
    # harmonic mean of accuracy (1 or 0) and 4 * brevity (4/6 for "Paris"): 2 / (1 + 6/4) = 0.8; a miss is 0
    assert result["combined"] == pytest.approx([0.8, 0.0, 0.8])
    assert result["loaded"] is True
