"""Scoring on a real local Ray cluster gives the in-process results, in input order; ``rewardkit score --ray``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

import rewardkit as rk
from rewardkit._errors import ConfigError
from rewardkit.cli import main
from rewardkit.scoring.batch_scoring import score_rows
from rewardkit.scoring.ray_scoring import score_on_ray, split_shards

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
CLI_ROWS = [
    {"id": 1, "prompt": "6*7?", "completion": r"<think>6*7=42</think><answer>\boxed{42}</answer>", "answer": "42"},
    {"id": 2, "prompt": "6*7?", "completion": r"\boxed{42}", "answer": "42"},
    {"id": 3, "prompt": "6*7?", "completion": r"either \boxed{42} or \boxed{24}", "answer": "42"},
    {"id": 4, "prompt": "no ref", "completion": "<think>a</think><answer>b</answer>", "answer": None},
    {"id": 5, "prompt": "1+1?", "completion": r"<think>1+1=3</think><answer>\boxed{3}</answer>", "answer": "2"},
]


@pytest.fixture(scope="module")
def mixed_spec() -> dict:
    # The example spec, with a math timeout a loaded 2-core test machine cannot turn into `timeout` verdicts.
    spec = yaml.safe_load((EXAMPLES / "mixed_spec.yaml").read_text())
    for term in spec["terms"]:
        if term.get("reward") == "math_accuracy":
            term["params"] = {"timeout": 20}
    return spec


@pytest.fixture(scope="module")
def mixed_rows() -> list[dict]:
    lines = (EXAMPLES / "mixed.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines[:40]]


def in_process(spec, rows: list[dict]) -> list[dict]:
    with rk.build_reward(spec) as reward:
        scored, _ = score_rows(reward, rows, batch_size=8)
    return scored


def test_split_shards_keeps_order_and_balances():
    rows = [{"i": i} for i in range(10)]
    pieces = split_shards(rows, 4)
    assert [len(p) for p in pieces] == [3, 3, 2, 2]
    assert [r for p in pieces for r in p] == rows
    assert len(split_shards(rows[:2], 5)) == 2 and split_shards([], 3) == []
    with pytest.raises(ConfigError, match="shards must be >= 1"):
        split_shards(rows, 0)


def test_ray_results_equal_in_process_in_input_order(ray, mixed_spec, mixed_rows):
    expected = in_process(mixed_spec, mixed_rows)
    # The rows differ, so equal lists mean every row's result came back in its own place.
    assert len({json.dumps(r, sort_keys=True) for r in expected}) > 10
    assert {r["status"] for r in expected} >= {"ok", "hedged"}

    got = score_on_ray(mixed_spec, mixed_rows, shards=7, batch_size=4)
    assert got == expected

    reversed_rows = mixed_rows[::-1]
    assert score_on_ray(mixed_spec, reversed_rows, shards=3) == expected[::-1]


def test_ray_reports_each_shard_in_order(ray, mixed_spec, mixed_rows):
    seen: list[int] = []
    got = score_on_ray(mixed_spec, mixed_rows[:9], shards=4, actors=2, on_shard=seen.append)
    assert seen == [3, 2, 2, 2] and len(got) == 9


def test_ray_errors_are_config_errors(ray, mixed_spec, tmp_path):
    with pytest.raises(ConfigError, match="spec.terms"):  # checked in the driver, before any actor starts
        score_on_ray({"combine": "sum", "terms": [{"reward": "no_such_reward"}]}, [{"completion": "x"}])
    with pytest.raises(ConfigError, match="no 'completion' field"):  # raised in an actor, re-raised here as itself
        score_on_ray(
            mixed_spec,
            [{"completion": "a", "answer": "1", "task": "math"}, {"text": "b", "answer": "1", "task": "math"}],
            shards=2,
        )
    assert score_on_ray(mixed_spec, []) == []


def test_missing_ray_names_the_extra(monkeypatch, mixed_spec):
    monkeypatch.setitem(sys.modules, "ray", None)  # what `import ray` meets where ray is not installed
    with pytest.raises(ConfigError, match=r"pip install -e '\.\[ray\]' in a rewardkit checkout"):
        score_on_ray(mixed_spec, [{"completion": "x"}])


@pytest.fixture
def cli_files(tmp_path: Path) -> tuple[Path, Path]:
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        yaml.safe_dump(
            {
                "name": "acc_fmt",
                "combine": "sum",
                "terms": [
                    {"reward": "math_accuracy", "params": {"timeout": 20}},
                    {"reward": "tag_format", "weight": 0.5},
                ],
            }
        )
    )
    data = tmp_path / "in.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in CLI_ROWS))
    return spec, data


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_cli_ray_flag_matches_in_process(ray, cli_files, tmp_path):
    spec, data = cli_files
    outputs = {}
    for mode, extra in (("local", []), ("ray", ["--ray", "--batch-size", "2"])):
        out, summary = tmp_path / f"{mode}.jsonl", tmp_path / f"{mode}.json"
        result = CliRunner().invoke(
            main,
            [
                "score",
                "-r",
                str(spec),
                "-i",
                str(data),
                "-o",
                str(out),
                "--summary-json",
                str(summary),
                "--no-progress",
                *extra,
            ],
            catch_exceptions=False,
        )
        assert result.exit_code == 0, result.output
        outputs[mode] = (read_jsonl(out), json.loads(summary.read_text()))
    rows, totals = outputs["ray"]
    assert rows == outputs["local"][0]
    assert [r["id"] for r in rows] == [1, 2, 3, 4, 5]
    assert [r["reward"] for r in rows] == [1.5, 1.0, 0.0, 0.5, 0.5]
    local_totals = outputs["local"][1]
    for key in ("samples", "reward_mean", "component_means", "statuses", "hedged"):
        assert totals[key] == local_totals[key]


def test_cli_ray_address_joins_a_running_cluster(ray, cli_files, tmp_path):
    spec, data = cli_files
    address = ray.get_runtime_context().gcs_address
    out = tmp_path / "out.jsonl"
    env = {**os.environ, "RAY_ADDRESS": ""}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "rewardkit.cli",
            "score",
            "-r",
            str(spec),
            "-i",
            str(data),
            "-o",
            str(out),
            "--no-progress",
            "--ray-address",
            address,
        ],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert [r["reward"] for r in read_jsonl(out)] == [1.5, 1.0, 0.0, 0.5, 0.5]
    assert "acc_fmt" in proc.stdout


def test_cli_ray_starts_and_stops_its_own_local_cluster(ray, cli_files, tmp_path):
    spec, data = cli_files
    out = tmp_path / "out.jsonl"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "rewardkit.cli",
            "score",
            "-r",
            str(spec),
            "-i",
            str(data),
            "-o",
            str(out),
            "--no-progress",
            "--ray",
            "--workers",
            "2",
        ],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "RAY_ADDRESS": ""},
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Started a local Ray instance" in proc.stderr  # its own cluster, not the one this module runs
    assert [r["reward"] for r in read_jsonl(out)] == [1.5, 1.0, 0.0, 0.5, 0.5]
