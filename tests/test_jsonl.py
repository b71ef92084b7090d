"""The one JSONL reader (``rewardkit._jsonl``) and the message every caller gives for a bad line: the file,
the line number and what was wrong."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rewardkit import ConfigError
from rewardkit._jsonl import iter_jsonl, parse_object, read_jsonl
from rewardkit.scoring.ray_data_scoring import row_of
from rewardkit.scoring.readers import iter_samples, read_samples
from rewardkit.scoring.writers import existing_rows
from rewardkit.train.config import DataConfig
from rewardkit.train.data import load_examples
from rewardkit.train.plots import read_log
from rewardkit.train.run_dir import cut_logs_to

BAD_LINES = (
    ("{oops", "not valid JSON (Expecting property name enclosed in double quotes)"),
    ("[1, 2]", "expected a JSON object per line, got list"),
    ('"text"', "expected a JSON object per line, got str"),
)


def with_bad_line(path: Path, bad: str, row: dict | None = None) -> Path:
    good = json.dumps(row or {"prompt": "p", "reward": 1.0, "step": 1})
    path.write_text(f"{good}\n\n{bad}\n{good}\n")  # the bad line is line 3: blank lines count
    return path


def test_rows_stream_with_file_and_line_and_blank_lines_skipped(tmp_path):
    path = tmp_path / "d.jsonl"
    path.write_text('{"a": 1}\n\n  \n{oops\n{"b": "x\u2028y"}')
    lines = list(iter_jsonl(path))
    assert [(line.where, line.row) for line in lines] == [
        (f"{path}:1", {"a": 1}),
        (f"{path}:4", None),
        (f"{path}:5", {"b": "x\u2028y"}),
    ]
    assert lines[1].error is not None and lines[1].error.startswith("not valid JSON (")
    with pytest.raises(ConfigError, match=f"^ctx: {path}:4: not valid JSON"):
        list(read_jsonl(path, "ctx: "))


@pytest.mark.parametrize(("line", "why"), BAD_LINES)
def test_a_bad_line_says_why(line, why):
    assert parse_object(line) == (None, why)


@pytest.mark.parametrize(("line", "why"), BAD_LINES)
def test_every_caller_names_the_file_line_and_why(tmp_path, line, why):
    path = with_bad_line(tmp_path / "d.jsonl", line)
    where = f"{path}:3"
    assert [(s.where, s.error) for s in iter_samples(path) if s.row is None] == [(where, why)]
    with pytest.raises(ConfigError, match=f"^{where}: {why}".replace("(", r"\(").replace(")", r"\)")):
        read_samples(path)
    with pytest.raises(ConfigError) as raised:
        load_examples(DataConfig(path=str(path), eval_size=0), seed=0)
    assert str(raised.value) == f"data.path: {where}: {why}"
    with pytest.raises(ConfigError) as raised:
        list(existing_rows(path))
    assert str(raised.value) == f"--resume: {where} is not a scored row ({why})"
    with pytest.raises(ConfigError) as raised:
        read_log(path)
    assert str(raised.value) == f"{where}: {why}"
    (tmp_path / "run").mkdir()
    with_bad_line(tmp_path / "run" / "metrics.jsonl", line)
    with pytest.raises(ConfigError) as raised:
        cut_logs_to(tmp_path / "run", step=1)
    assert str(raised.value) == f"{tmp_path / 'run' / 'metrics.jsonl'}:3: {why}"
    # Ray Data reads text lines without their numbers: a line is named by its start
    assert row_of(line, None, "completion") == (None, f"input line {line[:60]!r}: {why}")


def test_training_prompts_keep_a_line_separator_inside_a_string(tmp_path):
    path = tmp_path / "d.jsonl"
    path.write_text("".join(json.dumps({"prompt": f"a\u2028{i}"}, ensure_ascii=False) + "\n" for i in range(3)))
    train, _ = load_examples(DataConfig(path=str(path), eval_size=0), seed=0)
    assert sorted(r["prompt"] for r in train) == [f"a\u2028{i}" for i in range(3)]


def test_resume_rows_need_a_reward(tmp_path):
    path = with_bad_line(tmp_path / "out.jsonl", '{"prompt": "p"}')
    with pytest.raises(ConfigError) as raised:
        list(existing_rows(path))
    assert str(raised.value) == f"--resume: {path}:3 is not a scored row (no 'reward' field)"


def test_a_line_that_is_not_utf8_is_a_line_error_and_reading_goes_on(tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_bytes(b'{"a": 1}\n{"b": "\xff\xfe"}\n{"c": 3}\n')
    lines = list(iter_jsonl(path))
    assert [line.row for line in lines] == [{"a": 1}, None, {"c": 3}]
    assert lines[1].where == f"{path}:2" and lines[1].error == "not valid UTF-8 (byte 0xff at column 8)"
