"""The ``ifeval`` verifier's open-instruct (IFEvalG) checks against open-instruct's own, on real responses.

    .venv/bin/python benchmarks/bench_ifeval_open_instruct.py --open-instruct PATH --responses FILE \\
        [--write BENCHMARKS.md]

``PATH`` is an allenai/open-instruct checkout; its ``open_instruct/IFEvalG`` checks are imported from there and
run in this process (nothing of them is copied here). Where ``absl``, ``immutabledict`` or ``nltk`` are not
installed, small stand-ins are put in their place: ``absl.logging`` as the standard ``logging``,
``immutabledict`` as ``dict``, and an ``nltk`` whose ``RegexpTokenizer`` is the regular expression it wraps
and whose ``word_tokenize`` raises ``LookupError`` as NLTK does without its Punkt data. The checks that need
that data are then counted as not run.

``FILE`` holds responses as IFEval's ``input_response_data_*.jsonl`` does (``prompt``, ``response``). Every
IFEvalG id beyond IFEval's 25 is checked on every response with fixed arguments (below), strict, by both; the
report gives, per id, how often they agree and which side credits the rest.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import logging
import re
import sys
import textwrap
import types
from collections import Counter
from pathlib import Path
from typing import Any

from rewardkit.verifiers.instruction_following.registry import CHECKS, bind

SECTION = "## Instruction following vs open-instruct's IFEvalG checks (benchmarks/bench_ifeval_open_instruct.py)"
ARGS: dict[str, dict[str, Any]] = {
    "copy:repeat_phrase": {"phrase": "the speed of light", "small_n": 2},
    "copy:copy": {},
    "new:copy_span_idx": {"n_start": 0, "n_end": 20},
    "detectable_format:sentence_hyphens": {},
    "keywords:no_adjacent_consecutive": {},
    "detectable_format:square_brackets": {},
    "keywords:word_once": {"keyword": "the"},
    "keywords:word_count_different_numbers": {"keyword": "the", "frequency": 5, "relation": "at least"},
    "keywords:exclude_word_harder": {"keyword": "the"},
    "paragraphs:paragraphs": {},
    "paragraphs:paragraphs2": {},
    "first_word:first_word_sent": {"first_word": "the"},
    "first_word:first_word_answer": {"first_word": "the"},
    "last_word:last_word_sent": {"last_word": "it"},
    "last_word:last_word_answer": {"last_word": "you"},
    "detectable_format:bigram_wrapping": {},
    "copy:copying_simple": {},
    "copy:copying_multiple": {"N": 2},
    "punctuation:punctuation_dot": {},
    "punctuation:punctuation_exclamation": {},
    "count:lowercase_counting": {"N": 50},
    "letters:letter_counting": {"N": 500, "relation": "at least"},
    "letters:letter_counting2": {"letter": "e", "let_frequency": 40, "let_relation": "at least"},
    "count:counting_composition": {"n_sent": 2, "n_words": 5},
    "count:count_unique": {},
    "count:count_increment_word": {"keyword1": "and", "keyword2": "the"},
    "keywords:palindrome": {},
    "keywords:keyword_specific_position": {"keyword": "the", "n": 1, "m": 1},
    "keywords:start_end": {},
}
NOTES = """\
The arguments are fixed, so on most ids both sides mostly refuse (the `both credit` count shows how many
responses both credit); the comparison is of the checks' readings of real text, not of how well GPT-4 follows
these instructions. The differences are the ones docs/instruction-following.md lists as ours following the
instruction where open-instruct's check does not: `keywords:palindrome` (open-instruct credits a one-letter
word such as `a` or `I`, so nearly every reply), `keywords:exclude_word_harder` (open-instruct misses the word
next to punctuation or at a line's start), `first_word:*` (open-instruct compares the first token with its
punctuation, `The,` is not `the`), and `detectable_format:sentence_hyphens`, where open-instruct credits a
single sentence without any hyphen and splits sentences with its own rule. Not run here: the checks that need
NLTK's Punkt data (`count:count_unique`, `keywords:keyword_specific_position`, `keywords:start_end`, and
`count:counting_composition` on responses that reach its word counting)."""
PROMPT_ARGS = {"copy:copy", "new:copy_span_idx", "copy:copying_simple", "copy:copying_multiple"}


def stand_ins() -> None:
    """Modules open-instruct's checks import, where they are not installed."""
    if importlib.util.find_spec("absl") is None:
        absl = types.ModuleType("absl")
        absl.logging = logging  # type: ignore[attr-defined]
        sys.modules.update({"absl": absl, "absl.logging": logging})
    if importlib.util.find_spec("immutabledict") is None:
        stub = types.ModuleType("immutabledict")
        stub.immutabledict = dict  # type: ignore[attr-defined]
        sys.modules["immutabledict"] = stub
    if importlib.util.find_spec("nltk") is None:
        nltk_stub = types.ModuleType("nltk")

        class RegexpTokenizer:
            def __init__(self, pattern: str) -> None:
                self.pattern = re.compile(pattern)

            def tokenize(self, text: str) -> list[str]:
                return self.pattern.findall(text)

        def word_tokenize(text: str) -> list[str]:
            raise LookupError("Punkt is not installed")

        nltk_stub.tokenize = types.SimpleNamespace(RegexpTokenizer=RegexpTokenizer)  # type: ignore[attr-defined]
        nltk_stub.word_tokenize = word_tokenize  # type: ignore[attr-defined]
        nltk_stub.data = types.SimpleNamespace(load=word_tokenize)  # type: ignore[attr-defined]
        sys.modules["nltk"] = nltk_stub


def load_registry(root: Path) -> dict[str, Any]:
    stand_ins()
    sys.path.insert(0, str(root))
    from open_instruct.IFEvalG import instructions_registry  # type: ignore[import-not-found]

    return dict(instructions_registry.INSTRUCTION_DICT)


def compare(registry: dict[str, Any], rows: list[dict[str, Any]]) -> dict[str, Counter[str]]:
    out: dict[str, Counter[str]] = {}
    for instruction, args in ARGS.items():
        counts: Counter[str] = Counter()
        spec = CHECKS[instruction]
        for row in rows:
            given = {**args, "prompt_to_repeat": row["prompt"]} if instruction in PROMPT_ARGS else dict(args)
            theirs_check = registry[instruction](instruction)
            theirs_check.build_description(**given)
            try:
                theirs = bool(theirs_check.check_following(row["response"]))
            except LookupError:
                counts["not run (needs Punkt)"] += 1
                continue
            except Exception:  # noqa: BLE001 - their check failing on a response is a finding, not a crash
                counts["theirs raised"] += 1
                continue
            ours = spec.fn(row["response"], bind(spec, given))
            counts["judged"] += 1
            counts["agree" if ours == theirs else ("ours only" if ours else "theirs only")] += 1
            counts["both credit"] += ours and theirs
        out[instruction] = counts
    return out


def report(results: dict[str, Counter[str]], responses: str) -> str:
    judged = sum(c["judged"] for c in results.values())
    agree = sum(c["agree"] for c in results.values())
    summary = (
        f"Each of open-instruct's 29 IFEvalG ids beyond IFEval's, with fixed arguments, on every response of "
        f"`{responses}`, judged by ours and by open-instruct's check (run from a checkout, strict): "
        f"**{agree}/{judged} verdicts agree ({agree / judged:.2%})**."
    )
    lines = [
        SECTION,
        "",
        *textwrap.wrap(summary, 110),
        "",
        "| instruction id | judged | agree (both credit) | ours only | theirs only | not run |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for instruction, c in results.items():
        not_run = c["not run (needs Punkt)"] + c["theirs raised"]
        raised = f" ({c['theirs raised']} raised)" if c["theirs raised"] else ""
        lines.append(
            f"| `{instruction}` | {c['judged']} | {c['agree']} ({c['both credit']}) | {c['ours only']} "
            f"| {c['theirs only']} | {not_run}{raised} |"
        )
    return "\n".join([*lines, "", NOTES]) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--open-instruct", type=Path, required=True, help="an allenai/open-instruct checkout")
    parser.add_argument("--responses", type=Path, required=True, help="IFEval-layout responses (.jsonl)")
    parser.add_argument("--write", type=Path, help="replace this section of a markdown file with the report")
    args = parser.parse_args()
    rows = [json.loads(line) for line in args.responses.read_text(encoding="utf-8").splitlines() if line.strip()]
    text = report(compare(load_registry(args.open_instruct), rows), args.responses.name)
    print(text)
    if args.write:
        old = args.write.read_text(encoding="utf-8") if args.write.exists() else ""
        start = old.find(SECTION)
        if start < 0:
            args.write.write_text(old.rstrip("\n") + "\n\n" + text, encoding="utf-8")
        else:
            end = old.find("\n## ", start + len(SECTION))
            rest = "\n" + old[end + 1 :] if end >= 0 else ""
            args.write.write_text(old[:start] + text + rest, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
