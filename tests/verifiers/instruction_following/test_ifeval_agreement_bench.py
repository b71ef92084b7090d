"""benchmarks/bench_ifeval_agreement.py on a tiny IFEval-layout folder: agreement counted, a planted
disagreement reported by instruction id, the BENCHMARKS.md section replaced in place."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

pytest.importorskip("langdetect", reason="the ifeval extra (langdetect) is not installed")

BENCH = Path(__file__).resolve().parents[3] / "benchmarks" / "bench_ifeval_agreement.py"


def bench():
    spec = importlib.util.spec_from_file_location("bench_ifeval_agreement", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def write(path: Path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def test_agreement_and_disagreements_are_counted_per_instruction(tmp_path, monkeypatch):
    prompts = ["Say hi with no commas.", "Give a title."]
    write(
        tmp_path / "input_data.jsonl",
        [
            {"key": 1, "prompt": prompts[0], "instruction_id_list": ["punctuation:no_comma"], "kwargs": [{}]},
            {"key": 2, "prompt": prompts[1], "instruction_id_list": ["detectable_format:title"], "kwargs": [{}]},
        ],
    )
    write(tmp_path / "input_response_data_toy.jsonl", [{"prompt": prompts[0], "response": "Hi there"},
                                                      {"prompt": prompts[1], "response": "No title here"}])  # fmt: skip
    verdicts = [{"prompt": prompts[0], "follow_instruction_list": [True]},
                {"prompt": prompts[1], "follow_instruction_list": [True]}]  # fmt: skip  # the second is planted
    (tmp_path / "input_response_data_toy").mkdir()
    write(tmp_path / "input_response_data_toy" / "eval_results_strict.jsonl", verdicts)
    module = bench()
    result = module.compare(tmp_path, tmp_path / "input_response_data_toy.jsonl", "strict")
    assert result["instructions"] == 2 and result["agree"] == 1
    assert result["by_id"]["detectable_format:title"]["theirs_only"] == 1
    assert module.compare(tmp_path, tmp_path / "input_response_data_toy.jsonl", "loose") is None  # no verdicts

    markdown = tmp_path / "BENCHMARKS.md"
    markdown.write_text(f"# B\n\n{module.SECTION}\n\nstale numbers\n\n## Next\n\nkept\n")
    monkeypatch.setattr(sys, "argv", ["bench", "--data", str(tmp_path), "--write", str(markdown)])
    assert module.main() == 0
    text = markdown.read_text()
    assert (
        "stale numbers" not in text
        and text.index(module.SECTION) < text.index("## Next\n\nkept")
        and "| toy | strict | 2 | 50.00% (1 differ)" in text
    )
