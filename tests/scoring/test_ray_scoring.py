"""Scoring on a real local Ray cluster gives the in-process results, in input order: rows through a Ray-backed
reward (``rk.score_rows``), and ``rewardkit score --ray``."""

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
from rewardkit.cli import main
from rewardkit.scoring.batch_scoring import score_rows

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


def test_rows_scored_by_a_ray_reward_equal_in_process_in_input_order(ray, mixed_spec, mixed_rows):
    expected = in_process(mixed_spec, mixed_rows)
    # The rows differ, so equal lists mean every row's result came back in its own place.
    assert len({json.dumps(r, sort_keys=True) for r in expected}) > 10
    assert {r["status"] for r in expected} >= {"ok", "hedged"}

    with rk.build_reward(mixed_spec, executor="ray", actors=2, chunk_size=3) as remote:
        assert rk.score_rows(remote, mixed_rows, batch_size=16) == expected
        assert rk.score_rows(remote, mixed_rows[::-1], batch_size=40) == expected[::-1]
        assert rk.score_rows(remote, []) == []


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
