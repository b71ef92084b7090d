"""benchmarks/bench_ifeval_open_instruct.py on a stand-in open-instruct checkout: every IFEvalG id is compared,
the checker's own failures are counted apart, and the section is written."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[3] / "benchmarks" / "bench_ifeval_open_instruct.py"
FAKE_REGISTRY = """
class AlwaysYes:
    def __init__(self, instruction_id):
        self.id = instruction_id

    def build_description(self, **kwargs):
        self.kwargs = kwargs

    def check_following(self, value):
        if self.id == "keywords:start_end":
            raise LookupError("no Punkt here")
        return True


INSTRUCTION_DICT = {name: AlwaysYes for name in NAMES}
"""


def test_the_bench_compares_every_id_and_counts_checks_that_could_not_run(tmp_path, monkeypatch):
    spec = importlib.util.spec_from_file_location("bench_ifeval_open_instruct", BENCH)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    package = tmp_path / "checkout" / "open_instruct" / "IFEvalG"
    package.mkdir(parents=True)
    (package.parent / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    (package / "instructions_registry.py").write_text(f"NAMES = {sorted(bench.ARGS)!r}\n{FAKE_REGISTRY}")
    responses = tmp_path / "responses.jsonl"
    responses.write_text(json.dumps({"prompt": "Say hi.", "response": "Say hi."}) + "\n")
    monkeypatch.setattr(sys, "path", list(sys.path))
    for name in [m for m in sys.modules if m == "open_instruct" or m.startswith("open_instruct.")]:
        monkeypatch.delitem(sys.modules, name)
    results = bench.compare(bench.load_registry(tmp_path / "checkout"), [json.loads(responses.read_text())])
    assert set(results) == set(bench.ARGS) and len(results) == 29
    assert results["keywords:start_end"]["not run (needs Punkt)"] == 1
    assert results["copy:copy"]["agree"] == 1  # the response is the prompt: ours credits it too
    assert results["punctuation:punctuation_dot"]["theirs only"] == 1  # "Say hi." has a dot
    text = bench.report(results, "responses.jsonl")
    assert text.startswith(bench.SECTION) and "| `copy:copy` | 1 | 1 (1) | 0 | 0 | 0 |" in text
