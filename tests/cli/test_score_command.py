"""``rewardkit score`` on small files: JSONL, parquet, a saved datasets dataset; errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from reward_helpers import require_module
from rewardkit.cli import main

SPEC = """\
name: acc_fmt
combine: sum
terms:
  - reward: math_accuracy
    params: {timeout: 20}     # generous: a loaded test machine must not turn verdicts into timeouts
  - reward: tag_format
    weight: 0.5
"""

ROWS = [
    {"id": 1, "prompt": "6*7?", "completion": r"<think>6*7=42</think><answer>\boxed{42}</answer>", "answer": "42"},
    {"id": 2, "prompt": "6*7?", "completion": r"\boxed{42}", "answer": "42"},
    {
        "id": 3,
        "prompt": [{"role": "user", "content": "6*7?"}],
        "completion": [{"role": "assistant", "content": r"either \boxed{42} or \boxed{24}"}],
        "answer": "42",
    },
    {"id": 4, "prompt": "no ref", "completion": "<think>a</think><answer>b</answer>", "answer": None},
]


@pytest.fixture
def spec(tmp_path: Path) -> Path:
    path = tmp_path / "spec.yaml"
    path.write_text(SPEC)
    return path


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def invoke(*args: str):
    result = CliRunner().invoke(main, ["score", *args], catch_exceptions=False)
    return result


def check_scored(rows: list[dict]) -> None:
    assert [r["id"] for r in rows] == [1, 2, 3, 4]
    assert [r["reward"] for r in rows] == [1.5, 1.0, 0.0, 0.5]
    assert rows[0]["components"] == {"math_accuracy": 1.0, "tag_format": 1.0}
    assert rows[3]["components"] == {"math_accuracy": None, "tag_format": 1.0}
    assert [r["status"] for r in rows] == ["ok", "ok", "hedged", None]
    assert rows[0]["extracted"] == "42"
    assert rows[2]["verdicts"]["math_accuracy"]["status"] == "hedged"


def test_score_jsonl(tmp_path, spec):
    data = write_jsonl(tmp_path / "in.jsonl", ROWS)
    out, summary = tmp_path / "out.jsonl", tmp_path / "summary.json"
    result = invoke(
        "--reward",
        str(spec),
        "--input",
        str(data),
        "--output",
        str(out),
        "--summary-json",
        str(summary),
        "--batch-size",
        "3",
        "--workers",
        "2",
    )
    assert result.exit_code == 0, result.output
    check_scored(read_jsonl(out))
    totals = json.loads(summary.read_text())
    assert totals["samples"] == 4 and totals["hedged"] == 1 and totals["statuses"] == {"ok": 2, "hedged": 1}
    assert totals["component_means"] == {"math_accuracy": pytest.approx(2 / 3), "tag_format": 0.5}
    assert totals["component_counts"] == {"math_accuracy": 3, "tag_format": 4}
    assert "acc_fmt" in result.output and "hedges caught: 1" in result.output and "samples/s" in result.output


def test_score_parquet_in_and_out(tmp_path, spec, ci_require):
    pq = require_module(ci_require, "pyarrow.parquet", "pyarrow (dev extra) for parquet input")
    import pyarrow as pa

    plain = [{k: v for k, v in r.items() if k != "prompt"} for r in ROWS if isinstance(r["completion"], str)]
    source = tmp_path / "in.parquet"
    pq.write_table(pa.Table.from_pylist(plain), source)
    out = tmp_path / "out.parquet"
    result = invoke("--reward", str(spec), "--input", str(source), "--output", str(out), "--no-progress")
    assert result.exit_code == 0, result.output
    rows = pq.read_table(out).to_pylist()
    assert [r["reward"] for r in rows] == [1.5, 1.0, 0.5]
    assert json.loads(rows[0]["components"]) == {"math_accuracy": 1.0, "tag_format": 1.0}


def test_score_saved_dataset(tmp_path, spec, ci_require):
    datasets = require_module(ci_require, "datasets", "datasets (train extra) for saved datasets")
    plain = [r for r in ROWS if isinstance(r["completion"], str)]
    datasets.DatasetDict({"test": datasets.Dataset.from_list(plain)}).save_to_disk(str(tmp_path / "ds"))
    out = tmp_path / "out.jsonl"
    result = invoke("--reward", str(spec), "--input", str(tmp_path / "ds"), "--output", str(out), "--no-progress")
    assert result.exit_code == 0, result.output
    assert [r["reward"] for r in read_jsonl(out)] == [1.5, 1.0, 0.5]


def test_score_with_a_registered_reward_name(tmp_path):
    data = write_jsonl(tmp_path / "in.jsonl", ROWS)
    out = tmp_path / "out.jsonl"
    result = invoke("--reward", "tag_format", "--input", str(data), "--output", str(out), "--no-progress")
    assert result.exit_code == 0, result.output
    assert [r["reward"] for r in read_jsonl(out)] == [1.0, 0.0, 0.0, 1.0]


@pytest.mark.parametrize(
    ("content", "args", "message"),
    [
        ('{"completion": "x"}\nnot json\n', [], "in.jsonl:2: not valid JSON"),
        (
            '{"text": "x", "answer": "1"}\n',
            [],
            "in.jsonl:1: no 'completion' field (set --completion-key); its fields: text, answer",
        ),
        ('{"completion": "x"}\n', ["--reward", "nope"], "unknown reward 'nope'"),
        ('{"completion": "x"}\n', [], "needs a dataset column named 'answer' or 'solution'"),
    ],
)
def test_score_errors(tmp_path, spec, content, args, message):
    data = tmp_path / "in.jsonl"
    data.write_text(content)
    reward_args = args or ["--reward", str(spec)]
    result = CliRunner().invoke(main, ["score", *reward_args, "--input", str(data), "--no-progress"])
    assert result.exit_code != 0
    assert message in result.output


def test_score_missing_input_and_unknown_format(tmp_path, spec):
    result = CliRunner().invoke(main, ["score", "-r", str(spec), "-i", str(tmp_path / "none.jsonl")])
    assert result.exit_code != 0 and "does not exist" in result.output
    odd = tmp_path / "in.csv"
    odd.write_text("a,b\n")
    result = CliRunner().invoke(main, ["score", "-r", str(spec), "-i", str(odd)])
    assert result.exit_code != 0 and "unknown format .csv" in result.output


def test_parquet_without_pyarrow_is_a_clear_error(tmp_path, spec, monkeypatch):
    import sys

    source = tmp_path / "in.parquet"
    source.write_bytes(b"PAR1")
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    result = CliRunner().invoke(main, ["score", "-r", str(spec), "-i", str(source)])
    assert result.exit_code != 0 and "needs pyarrow, which is not installed: pip install pyarrow" in result.output


def test_rows_the_verifier_could_not_judge_get_a_null_reward_and_are_counted(tmp_path, spec):
    rows = [
        {"id": 1, "completion": r"<think>a</think><answer>\boxed{42}</answer>", "answer": "42"},
        {"id": 2, "completion": r"<think>a</think><answer>\boxed{42}</answer>", "answer": ","},  # holds no value
        {"id": 3, "completion": r"<think>a</think><answer>\boxed{42}</answer>", "answer": float("nan")},
    ]
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))  # json writes the NaN as NaN, pandas-style
    out, summary = tmp_path / "out.jsonl", tmp_path / "summary.json"
    result = invoke("-r", str(spec), "-i", str(path), "-o", str(out), "--summary-json", str(summary), "--no-progress")
    assert result.exit_code == 0, result.output
    scored = read_jsonl(out)
    assert [r["reward"] for r in scored] == [1.5, None, 0.5]  # invalid reference: no reward; no reference: format only
    assert [r["status"] for r in scored] == ["ok", "invalid_reference", None]
    assert json.loads(summary.read_text())["infrastructure_failures"] == 1
    assert "1 not judged (infrastructure failures: reward null)" in " ".join(result.output.split())


SURROGATE_ROWS = [
    {"id": 1, "completion": "so \\boxed{42} \ud800", "answer": "42"},
    {"id": 2, "completion": "broken \udfff text then \\boxed{7}", "answer": "42"},
]


@pytest.mark.parametrize("suffix", [".jsonl", ".csv", ".parquet"])
def test_lone_surrogates_in_completions_are_scored_and_written(tmp_path, spec, suffix, ci_require):
    if suffix == ".parquet":
        require_module(ci_require, "pyarrow", "parquet output needs pyarrow")
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in SURROGATE_ROWS))  # json escapes them: "\ud800"
    out = tmp_path / f"out{suffix}"
    result = invoke("-r", str(spec), "-i", str(path), "-o", str(out), "--no-progress")
    assert result.exit_code == 0, result.output
    assert out.stat().st_size > 0
    if suffix == ".jsonl":
        scored = read_jsonl(out)
        assert [r["completion"] for r in scored] == [r["completion"] for r in SURROGATE_ROWS]  # exactly, escaped
        assert [r["components"]["math_accuracy"] for r in scored] == [1.0, 0.0]
    elif suffix == ".csv":
        text = out.read_text(encoding="utf-8")
        assert "\ufffd" in text and "boxed{42}" in text


def test_lines_that_are_not_utf8_are_errors_or_skipped(tmp_path, spec):
    path = tmp_path / "in.jsonl"
    good = json.dumps({"completion": "\\boxed{42}", "answer": "42"}).encode()
    path.write_bytes(good + b"\n" + b'{"completion": "caf\xe9", "answer": "1"}\n' + good + b"\n")
    failed = invoke("-r", str(spec), "-i", str(path), "--no-progress")
    assert failed.exit_code != 0
    assert f"{path}:2: not valid UTF-8 (byte 0xe9 at column 20)" in " ".join(failed.output.split())
    assert "Traceback" not in failed.output
    out = tmp_path / "out.jsonl"
    skipped = invoke("-r", str(spec), "-i", str(path), "-o", str(out), "--skip-invalid", "--no-progress")
    assert skipped.exit_code == 0, skipped.output
    assert len(read_jsonl(out)) == 2 and "skipped" in skipped.output
