"""``rewardkit bench``: the table's structure and its honesty (no timing is asserted)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from rewardkit.bench.runs import Row
from rewardkit.cli import main
from rewardkit.cli.bench import HEADER, render


def test_render_says_what_falls_short_and_what_was_skipped():
    rows = [
        Row("mcq: verify_batch vs verify() loop", "verify() loop", 100.0, 120.0, "verdicts/s", ">= 1.0x", True, "ok"),
        Row("code local: HumanEval", "harness", 20.0, 10.0, "programs/s", ">= 2.0x", False, "n programs"),
        Row("code docker: HumanEval", "-", None, None, "", ">= 10x", None, "skipped: no Docker engine"),
    ]
    text = render(rows)
    lines = text.splitlines()
    assert lines[0] == "| " + " | ".join(HEADER) + " |"
    assert "| 1.20x | >= 1.0x | yes |" in lines[2]
    assert "| 0.50x | >= 2.0x | NO |" in lines[3]
    assert lines[4].endswith("| - | >= 10x | skipped |")
    short = [line for line in lines if line.startswith("falls short:")]
    assert len(short) == 1 and short[0].startswith("falls short: code local: HumanEval: 0.50x against >= 2.0x: ")
    assert "- code docker: HumanEval: skipped: no Docker engine" in lines


@pytest.mark.slow
def test_bench_quick_mcq_prints_one_table_and_writes_json(tmp_path):
    out = tmp_path / "sub" / "bench.json"
    result = CliRunner().invoke(
        main, ["bench", "--quick", "--only", "mcq", "--profile", "--json", str(out)], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    table = [line for line in result.stdout.splitlines() if line.startswith("| ")]
    assert table[0] == "| " + " | ".join(HEADER) + " |"
    names = [line.split(" | ")[0][2:] for line in table[2:]]
    assert names == [
        "mcq: verify_batch, per core",
        "mcq: verify_batch vs verify() loop",
        "mcq: adversarial input, 2x size",
    ]
    assert all(line.split(" | ")[-1].rstrip(" |") in ("yes", "NO") for line in table[2:])
    assert "identical verdicts" in result.stdout  # batch and loop agree verdict for verdict
    assert "mcq: extract" in result.stdout  # --profile: the stage table
    assert "falls short:" in result.stdout or "every measured target is met" in result.stdout
    saved = json.loads(out.read_text())
    assert saved["quick"] is True and [r["name"] for r in saved["rows"]] == names
    assert all(r["ratio"] > 0 for r in saved["rows"])


@pytest.mark.slow
def test_memory_run_reports_the_scoring_process_and_each_worker():
    from rewardkit.bench.memory import memory_bench
    from rewardkit.bench.runs import Sizes

    (row,) = memory_bench(Sizes(memory_samples=600, memory_code_share=0.01))
    assert row.name == "memory: mixed run" and row.met in (True, False)
    assert row.base_rate > 0 and row.rk_rate > 0  # RSS in MB after the first chunk and at the end
    assert "600 samples (6 code" in row.note and "scoring process" in row.note
    assert "(pid " in row.note  # the math worker pool (and, as root, the warm zygotes) outlive every chunk


def test_a_figure_reported_without_a_target_is_neither_met_nor_skipped():
    rows = [Row("service: 16-row requests", "in-process", 100.0, 90.0, "rows/s", "-", None, "16 in flight")]
    lines = render(rows).splitlines()
    assert lines[2].endswith("| 0.90x | - | - |")
    assert "every measured target is met" in render(rows) and "skipped" not in render(rows)


@pytest.mark.slow
def test_the_service_rows_time_a_real_server_against_in_process_scoring():
    from rewardkit.bench.runs import QUICK
    from rewardkit.bench.service import service_bench

    rows = service_bench(QUICK)
    assert [r.name for r in rows] == [
        "service: 256-row requests",
        "service: 16-row requests",
        "service: 1-row requests batched",
        "service: 1-row requests batched, mcq",
    ]
    assert all(r.base_rate and r.rk_rate and r.ratio > 0 for r in rows)
    assert "p50" in rows[0].note and "p99" in rows[2].note and "ceiling" in rows[2].note
    assert rows[0].met == (rows[0].ratio >= 0.85) and rows[2].met == (rows[2].ratio >= 5)


def test_the_judge_rows_time_concurrent_and_cached_calls_against_one_call_at_a_time():
    from rewardkit.bench.judge_calls import judge_bench
    from rewardkit.bench.runs import QUICK

    concurrent, cached = judge_bench(QUICK)
    assert concurrent.name == "judge: max_concurrency 8" and cached.name == "judge: cache hit"
    assert "verdicts agree: True" in concurrent.note and "all hits: True" in cached.note
    assert concurrent.base_rate == cached.base_rate and concurrent.ratio > 1 and cached.ratio > concurrent.ratio
    assert concurrent.met == (concurrent.ratio >= 4) and cached.met == (cached.rk_rate >= 10_000)


def test_the_compiled_rows_time_the_judge_and_its_cache_hits_against_a_plain_compile_and_run_loop():
    import shutil

    from rewardkit.bench.compiled import code_compiled_bench
    from rewardkit.bench.runs import QUICK
    from rk_testing import require

    require(shutil.which("g++", path="/usr/local/bin:/usr/bin:/bin") is not None, "no g++ for the compiled bench")
    judged, cached = code_compiled_bench(QUICK, languages=["cpp17"])
    assert judged.name == "code compiled: cpp17 judged vs plain compile-and-run"
    assert "scores agree on 100%" in judged.note and "(1 right)" in judged.note and "every case run" in judged.note
    assert "0 compiles (every build a cache hit), verdicts the same" in cached.note
    assert judged.base_rate == cached.base_rate and cached.rk_rate > judged.rk_rate
    assert judged.met == (judged.ratio >= 0.8)


def test_the_compiled_benchs_plain_loop_runs_every_case_and_scores_the_fraction_passed():
    """The baseline does the judge's work: a wrong program's score is the fraction it passes, not a stop at the
    first failure."""
    import shutil

    from rewardkit.bench.compiled import PROGRAMS, plain_judge
    from rewardkit.sandbox.lookup import get_language
    from rk_testing import require

    require(shutil.which("gcc", path="/usr/local/bin:/usr/bin:/bin") is not None, "no gcc for the compiled bench")
    cases = {"inputs": ["3\n1 2 3\n", "7\n1 1 1 1 1 1 1\n", "1\n5\n"], "outputs": ["6\n", "7\n", "5\n"]}
    right, wrong = PROGRAMS["c"]  # the wrong one drops the last number when there are more than five
    assert plain_judge(get_language("c"), right, cases) == 1.0
    assert plain_judge(get_language("c"), wrong, cases) == 2 / 3
    assert plain_judge(get_language("c"), "int main(void) { return missing; }", cases) == 0.0
