"""``rewardkit score`` streaming: chunks written as scored, Ctrl-C keeps them, --resume, --limit,
--skip-invalid, column and parameter mapping, CSV output, per-sample status counts."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import rewardkit as rk
from reward_helpers import require_module
from rewardkit.cli import main
from rewardkit.scoring.batch_scoring import score_chunks

MATH_SPEC = "reward: math_accuracy\nparams: {timeout: 20}\n"


def rows(n: int) -> list[dict]:
    """n math rows; every third one wrong, every fifth one a hedge."""
    out = []
    for i in range(n):
        answer = str(i + 2)
        text = rf"\boxed{{{i + 2}}}" if i % 3 else rf"\boxed{{{i + 3}}}"
        if i % 5 == 4:
            text = rf"\boxed{{{i + 2}}} or \boxed{{{i + 9}}}"
        out.append({"id": i, "prompt": f"q{i}", "completion": text, "answer": answer})
    return out


def write_jsonl(path: Path, items: list) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in items))
    return path


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def score(*args: str):
    return CliRunner().invoke(main, ["score", *args, "--no-progress"])


def flat(result) -> str:
    return " ".join(result.output.split())


@pytest.fixture
def spec(tmp_path: Path) -> Path:
    path = tmp_path / "spec.yaml"
    path.write_text(MATH_SPEC)
    return path


class Interrupting:
    """A reward that scores like a length reward and raises KeyboardInterrupt on call number ``at``."""

    calls = 0
    at = 3

    @staticmethod
    def reward(prompts, completions, **kwargs):
        Interrupting.calls += 1
        if Interrupting.calls == Interrupting.at:
            raise KeyboardInterrupt
        return [float(len(c)) for c in completions]


class InterruptPlugin:
    @rk.hookimpl
    def register_rewards(self, register):
        register("interrupt_on_third_call", Interrupting.reward)


@pytest.mark.parametrize("workers", ["1", "2"])
def test_ctrl_c_keeps_finished_chunks_and_resume_completes_them(tmp_path, rewardkit_register, workers):
    rewardkit_register(InterruptPlugin(), name="interrupt-plugin")
    Interrupting.calls = 0
    data = write_jsonl(tmp_path / "in.jsonl", rows(10))
    out = tmp_path / "out.jsonl"
    args = ["-r", "interrupt_on_third_call", "-i", str(data), "-o", str(out), "--batch-size", "2", "-w", workers]
    result = score(*args)
    assert result.exit_code == 130, result.output
    kept = read_jsonl(out)
    assert [r["id"] for r in kept] == [0, 1, 2, 3]  # the two chunks before the interrupted one, in order
    assert "rerun with --resume" in flat(result)
    result = score(*args, "--resume")
    assert result.exit_code == 0, result.output
    done = read_jsonl(out)
    assert [r["id"] for r in done] == list(range(10))
    assert [r["reward"] for r in done] == [float(len(r["completion"])) for r in rows(10)]
    assert "4 resumed from the output" in flat(result)


def test_resume_rescores_a_line_cut_off_mid_write(tmp_path, spec):
    data = write_jsonl(tmp_path / "in.jsonl", rows(6))
    full = tmp_path / "full.jsonl"
    assert score("-r", str(spec), "-i", str(data), "-o", str(full)).exit_code == 0
    lines = full.read_text().splitlines(keepends=True)
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(lines[:3]) + lines[3][:25])  # a crash while writing the fourth row
    summary = tmp_path / "summary.json"
    result = score("-r", str(spec), "-i", str(data), "-o", str(cut), "--resume", "--summary-json", str(summary))
    assert result.exit_code == 0, result.output
    assert read_jsonl(cut) == read_jsonl(full)
    totals = json.loads(summary.read_text())
    assert totals["samples"] == 6 and totals["resumed"] == 3
    assert totals["statuses"] == {"ok": 5, "hedged": 1}  # the resumed rows count in the summary


def test_resume_refuses_an_output_of_another_input(tmp_path, spec):
    data = write_jsonl(tmp_path / "in.jsonl", rows(4))
    out = tmp_path / "out.jsonl"
    assert score("-r", str(spec), "-i", str(data), "-o", str(out), "--limit", "2").exit_code == 0
    other = rows(4)
    other[1]["completion"] = "changed"
    write_jsonl(data, other)
    result = score("-r", str(spec), "-i", str(data), "-o", str(out), "--resume")
    assert result.exit_code != 0
    assert f"{out}:2 was not scored from {data}:2 (field 'completion' differs)" in result.output
    longer = tmp_path / "short.jsonl"
    write_jsonl(longer, rows(1))
    result = score("-r", str(spec), "-i", str(longer), "-o", str(out), "--resume")
    assert result.exit_code != 0 and "has more rows (2+) than the input" in result.output


def test_resume_needs_a_jsonl_output(tmp_path, spec):
    data = write_jsonl(tmp_path / "in.jsonl", rows(2))
    result = score("-r", str(spec), "-i", str(data), "--resume")
    assert result.exit_code != 0 and "no --output was given" in result.output
    result = score("-r", str(spec), "-i", str(data), "-o", str(tmp_path / "o.csv"), "--resume")
    assert result.exit_code != 0 and "--resume needs a .jsonl output" in result.output


def test_limit_scores_the_first_rows_and_resume_finishes_within_it(tmp_path, spec):
    data = write_jsonl(tmp_path / "in.jsonl", rows(9))
    out = tmp_path / "out.jsonl"
    result = score("-r", str(spec), "-i", str(data), "-o", str(out), "--limit", "3", "--batch-size", "2")
    assert result.exit_code == 0, result.output
    assert [r["id"] for r in read_jsonl(out)] == [0, 1, 2]
    assert score("-r", str(spec), "-i", str(data), "-o", str(out), "--limit", "7", "--resume").exit_code == 0
    assert [r["id"] for r in read_jsonl(out)] == list(range(7))
    assert [r["reward"] for r in read_jsonl(out)] == [0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 0.0]


def test_skip_invalid_reports_file_lines(tmp_path, spec):
    good = rows(3)
    data = tmp_path / "in.jsonl"
    data.write_text(
        json.dumps(good[0])
        + "\n{oops\n\n[1, 2]\n"
        + json.dumps({"text": "x"})
        + "\n"
        + json.dumps(good[1])
        + "\n"
        + json.dumps(good[2])
        + "\n"
    )
    out = tmp_path / "out.jsonl"
    result = score("-r", str(spec), "-i", str(data), "-o", str(out))
    assert result.exit_code != 0
    assert f"{data}:2: not valid JSON" in result.output and "--skip-invalid" in result.output
    summary = tmp_path / "s.json"
    result = score("-r", str(spec), "-i", str(data), "-o", str(out), "--skip-invalid", "--summary-json", str(summary))
    assert result.exit_code == 0, result.output
    for line, why in (
        (2, "not valid JSON"),
        (4, "expected a JSON object per line, got list"),
        (5, "no 'completion' field"),
    ):
        assert f"skipped {data}:{line}: {why}" in flat(result)
    assert [r["id"] for r in read_jsonl(out)] == [0, 1, 2]
    assert json.loads(summary.read_text())["skipped"] == 3


def test_reference_key_and_params_from_the_cli(tmp_path, spec):
    renamed = [{"id": r["id"], "response": r["completion"], "gold": r["answer"]} for r in rows(4)]
    data = write_jsonl(tmp_path / "in.jsonl", renamed)
    out = tmp_path / "out.jsonl"
    expected = [0.0, 1.0, 1.0, 0.0]
    result = score(
        "-r", str(spec), "-i", str(data), "-o", str(out), "--completion-key", "response", "--reference-key", "gold"
    )
    assert result.exit_code == 0, result.output
    assert [r["reward"] for r in read_jsonl(out)] == expected
    result = score(
        "-r",
        "math_accuracy",
        "-p",
        "timeout=20",
        "-p",
        "reference_key=gold",
        "-i",
        str(data),
        "-o",
        str(out),
        "--completion-key",
        "response",
    )
    assert result.exit_code == 0, result.output
    assert [r["reward"] for r in read_jsonl(out)] == expected
    result = score("-r", "math_accuracy", "-p", "timeout=20", "-i", str(data), "--completion-key", "response")
    assert result.exit_code != 0 and "'answer' or 'solution'" in result.output  # without the mapping
    result = score("-r", str(spec), "-p", "timeout=3", "-i", str(data), "--completion-key", "response")
    assert result.exit_code != 0 and "gives each term its own 'params'" in result.output
    result = score("-r", "tag_format", "--reference-key", "gold", "-i", str(data), "--completion-key", "response")
    assert result.exit_code != 0 and "has no term that reads a reference column" in result.output
    result = score("-r", "math_accuracy", "-p", "nokeyvalue", "-i", str(data))
    assert result.exit_code != 0 and "expected KEY=VALUE" in result.output


def test_csv_output_and_unknown_output_extension(tmp_path, spec):
    data = write_jsonl(tmp_path / "in.jsonl", rows(4))
    out = tmp_path / "out.csv"
    assert score("-r", str(spec), "-i", str(data), "-o", str(out), "--batch-size", "3").exit_code == 0
    with out.open(newline="") as handle:
        table = list(csv.DictReader(handle))
    assert [r["id"] for r in table] == ["0", "1", "2", "3"]
    assert [float(r["reward"]) for r in table] == [0.0, 1.0, 1.0, 0.0]
    assert json.loads(table[1]["components"]) == {"math_accuracy": 1.0}
    result = score("-r", str(spec), "-i", str(data), "-o", str(tmp_path / "out.txt"))
    assert result.exit_code != 0
    assert "unknown format .txt; expected .jsonl (also .json, .ndjson), .csv or .parquet" in result.output
    assert not (tmp_path / "out.txt").exists()


def test_parquet_output_streams_chunks_with_late_extracted_answers(tmp_path, spec, ci_require):
    pq = require_module(ci_require, "pyarrow.parquet", "pyarrow (dev extra) for parquet output")
    items = [{"id": i, "completion": "no answer here", "answer": "1"} for i in range(3)] + rows(3)
    data = write_jsonl(tmp_path / "in.jsonl", items)
    out = tmp_path / "out.parquet"
    result = score("-r", str(spec), "-i", str(data), "-o", str(out), "--batch-size", "3")
    assert result.exit_code == 0, result.output
    table = pq.read_table(out).to_pylist()
    assert [r["extracted"] for r in table] == [None, None, None, "3", "3", "4"]


def test_summary_json_into_a_missing_folder_and_empty_input(tmp_path, spec):
    data = tmp_path / "in.jsonl"
    data.write_text("\n")
    summary = tmp_path / "new" / "deeper" / "summary.json"
    result = CliRunner().invoke(main, ["score", "-r", str(spec), "-i", str(data), "--summary-json", str(summary)])
    assert result.exit_code == 0, result.output
    assert "has no samples to score" in result.output
    assert json.loads(summary.read_text())["samples"] == 0


def test_split_on_a_plain_dataset_is_an_error(tmp_path, spec, ci_require):
    datasets = require_module(ci_require, "datasets", "datasets (train extra) for saved datasets")
    datasets.Dataset.from_list(rows(2)).save_to_disk(str(tmp_path / "ds"))
    result = score("-r", str(spec), "-i", str(tmp_path / "ds"), "--split", "test")
    assert result.exit_code != 0
    assert "is a single Dataset, not a DatasetDict, so it has no splits; drop --split" in result.output
    assert score("-r", str(spec), "-i", str(tmp_path / "ds")).exit_code == 0


def test_statuses_count_samples_and_each_term_separately(tmp_path):
    spec = tmp_path / "two.yaml"
    spec.write_text(
        "combine: sum\nterms:\n  - reward: math_accuracy\n    name: first\n    params: {timeout: 20}\n"
        "  - reward: math_accuracy\n    name: second\n    params: {timeout: 20}\n"
    )
    data = write_jsonl(tmp_path / "in.jsonl", rows(5))
    summary = tmp_path / "s.json"
    result = score("-r", str(spec), "-i", str(data), "--summary-json", str(summary))
    assert result.exit_code == 0, result.output
    totals = json.loads(summary.read_text())
    assert totals["statuses"] == {"ok": 4, "hedged": 1} and totals["hedged"] == 1
    assert totals["term_statuses"] == {"first": {"ok": 4, "hedged": 1}, "second": {"ok": 4, "hedged": 1}}
    assert "hedges caught: 1" in result.output


def test_score_chunks_reads_ahead_a_bounded_number_of_chunks():
    pulled = []

    def chunks():
        for i in range(50):
            pulled.append(i)
            yield [{"completion": "abc", "id": i}]

    reward = rk.build_reward({"reward": "tag_format"})
    stream = score_chunks(reward, chunks(), workers=3)
    first_chunk, first = next(stream)
    assert first_chunk[0]["id"] == 0 and first[0]["reward"] == 0.0
    assert len(pulled) <= 2 * 3 + 1  # not the whole input
    assert sum(1 for _ in stream) == 49


SLOW_PROGRAM = "```python\nimport time\ntime.sleep(0.3)\n\ndef double(x):\n    return 2 * x\n```"


@pytest.mark.slow
@pytest.mark.parametrize("signal_name", ["SIGINT", "SIGKILL"])
def test_a_real_interrupt_keeps_the_scored_rows_and_resume_finishes(tmp_path, ci_require, signal_name):
    """A real `rewardkit score` process, stopped by Ctrl-C (SIGINT) or killed outright (SIGKILL) while
    scoring: the rows written so far are whole, and --resume completes the file."""
    import contextlib
    import os
    import signal
    import subprocess
    import sys
    import time

    probe = rk.get_reward("code_pass_rate", wall_time=10)
    try:
        status = probe.verifier.verify(SLOW_PROGRAM, "assert double(2) == 4").status
    finally:
        probe.close()
    ci_require(status == "ok", f"the local sandbox does not run programs here (status {status!r})")
    items = [{"id": i, "completion": SLOW_PROGRAM, "tests": f"assert double({i}) == {2 * i}"} for i in range(30)]
    data = write_jsonl(tmp_path / "in.jsonl", items)
    out = tmp_path / "out.jsonl"
    spec = tmp_path / "code.yaml"
    spec.write_text("reward: code_pass_rate\nparams: {wall_time: 10}\n")
    args = [
        sys.executable,
        "-c",
        # as `python -m rewardkit.cli`, with Ctrl-C's default handler even where this test was started with
        # SIGINT ignored (a background job of a non-interactive shell), which the child would inherit
        "import runpy, signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
        "sys.argv[0] = 'rewardkit'; runpy.run_module('rewardkit.cli', run_name='__main__', alter_sys=True)",
        "score",
        "-r",
        str(spec),
        "-i",
        str(data),
        "-o",
        str(out),
        "--batch-size",
        "1",
        "--no-progress",
    ]
    src = str(Path(__file__).resolve().parents[2] / "src")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([src, os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.Popen(
        args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and proc.poll() is None:
        if out.exists() and out.read_text().count("\n") >= 2:
            break
        time.sleep(0.05)
    assert proc.poll() is None, "finished before it could be interrupted"
    proc.send_signal(getattr(signal, signal_name))
    _, stderr = proc.communicate(timeout=120)
    if signal_name == "SIGINT":
        assert proc.returncode == 130, stderr
        assert "rerun with --resume" in " ".join(stderr.split())
    else:  # the verifier's worker processes, if any outlived their parent, go too
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
    kept = [json.loads(line) for line in out.read_text().splitlines(keepends=True) if line.endswith("\n")]
    assert 2 <= len(kept) < 30 and [r["id"] for r in kept] == list(range(len(kept)))
    assert all(r["reward"] == 1.0 for r in kept)
    done = subprocess.run([*args, "--resume"], env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert [r["id"] for r in read_jsonl(out)] == list(range(30))
    assert all(r["reward"] == 1.0 for r in read_jsonl(out))
