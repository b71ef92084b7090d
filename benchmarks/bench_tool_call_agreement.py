"""The ``tool_call`` verifier against BFCL's AST checker, on candidates built from BFCL's own possible answers.

    .venv/bin/python benchmarks/bench_tool_call_agreement.py --bfcl PATH [--write BENCHMARKS.md]

``PATH`` is the ``berkeley-function-call-leaderboard`` folder of a ShishirPatil/gorilla checkout. BFCL's
checker (``bfcl_eval/eval_checker/ast_eval/ast_checker.py``) is imported from there and run in this process;
nothing of it is copied here. Its import of ``bfcl_eval.constants.model_config`` (which imports every model
handler and their SDKs) is replaced by a stub whose every model has ``underscore_to_dot=False``, the one field
the checker reads.

For each entry of the simple (Python), multiple, parallel and parallel-multiple categories, candidates are
built from the possible answer: right calls (the first accepted values, the last ones, the optional arguments
left out, strings in upper case, parallel calls reversed, an int for a whole float) and wrong ones (a value
changed, a required argument dropped, a wrong type, an unexpected argument, an extra or a missing call, another
function's name, a float for an integer). Both judge each candidate; the report gives the share on which they
agree and every class of disagreement (variant, our verdict, BFCL's), with examples.
"""

from __future__ import annotations

import argparse
import copy
import importlib
import json
import sys
import time
import types
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rewardkit.verifiers.tool_calls.verifier import ToolCallVerifier

SECTION = "## Tool calls vs BFCL's AST checker (benchmarks/bench_tool_call_agreement.py)"
CATEGORIES = ("simple_python", "multiple", "parallel", "parallel_multiple")
Calls = list[dict[str, dict[str, Any]]]


def load_checker(root: Path) -> tuple[Callable[..., dict[str, Any]], Any]:
    """BFCL's ``ast_checker`` and its ``Language`` enum, with the model registry stubbed out."""
    sys.path.insert(0, str(root))
    stub = types.ModuleType("bfcl_eval.constants.model_config")
    stub.MODEL_CONFIG_MAPPING = defaultdict(lambda: types.SimpleNamespace(underscore_to_dot=False))  # type: ignore[attr-defined]
    importlib.import_module("bfcl_eval.constants")
    sys.modules["bfcl_eval.constants.model_config"] = stub
    checker = importlib.import_module("bfcl_eval.eval_checker.ast_eval.ast_checker")
    enums = importlib.import_module("bfcl_eval.constants.enums")
    return checker.ast_checker, enums.Language.PYTHON


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _other(value: Any, allowed: list[Any]) -> Any:
    if isinstance(value, bool):
        out: Any = not value
    elif isinstance(value, (int, float)):
        out = value + 7
    elif isinstance(value, str):
        out = value + " zz"
    elif isinstance(value, list):
        out = [*value, value[-1]] if value else ["zz"]
    elif isinstance(value, dict):
        out = {**value, "zz": 1}
    else:
        out = "zz"
    return out if out not in allowed else f"{out!r} zz"


def _pick(answer: Calls, index: int, keep_optional: bool = True) -> Calls:
    calls = []
    for call in answer:
        name, args = next(iter(call.items()))
        chosen = {}
        for arg, allowed in args.items():
            values = [v for v in allowed if v != ""]
            if not values or (not keep_optional and "" in allowed):
                continue
            chosen[arg] = copy.deepcopy(values[index if index >= 0 else len(values) - 1])
        calls.append({name: chosen})
    return calls


def _types(functions: list[dict[str, Any]]) -> dict[tuple[str, str], str]:
    return {
        (f["name"], p): str(spec.get("type"))
        for f in functions
        for p, spec in f.get("parameters", {}).get("properties", {}).items()
    }


def _upper(value: Any) -> Any:
    if isinstance(value, str):
        return value.upper()
    if isinstance(value, list):
        return [_upper(v) for v in value]
    return value


def candidates(functions: list[dict[str, Any]], answer: Calls, category: str) -> dict[str, Calls]:
    """Variant name → the model output (BFCL's ``[{name: {arg: value}}]``) for one entry."""
    first = _pick(answer, 0)
    out: dict[str, Calls] = {"correct_first_values": first, "correct_last_values": _pick(answer, -1)}
    out["correct_optional_omitted"] = _pick(answer, 0, keep_optional=False)
    kinds = _types(functions)
    name, args = next(iter(first[0].items()))
    if any(isinstance(v, str) for v in args.values()):
        out["correct_upper_case_strings"] = [
            {n: {k: _upper(v) for k, v in a.items()}} for c in first for n, a in c.items()
        ]
    if len(first) > 1:
        out["correct_reversed_order"] = first[::-1]
        out["missing_call"] = first[:-1]
    out["extra_call"] = [*first, copy.deepcopy(first[0])]
    out["wrong_function_name"] = [{f"{name}_zz": args}, *first[1:]]
    out["unexpected_argument"] = [{name: {**args, "zz_unexpected": "x"}}, *first[1:]]
    allowed = next(iter(answer[0].values()))
    if args:
        arg, value = next(iter(args.items()))
        out["wrong_value"] = [{name: {**args, arg: _other(value, allowed[arg])}}, *first[1:]]
        required = [a for a in args if "" not in allowed[a]]
        if required:
            out["missing_required_argument"] = [{name: {k: v for k, v in args.items() if k != required[0]}}, *first[1:]]
        for a, v in args.items():
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                out["wrong_type_number_as_string"] = [{name: {**args, a: str(v)}}, *first[1:]]
                kind = kinds.get((name, a))
                if kind == "float" and float(v).is_integer():
                    out["int_for_whole_float"] = [{name: {**args, a: int(v)}}, *first[1:]]
                if kind == "integer" and isinstance(v, int):
                    out["float_for_integer"] = [{name: {**args, a: float(v)}}, *first[1:]]
                break
        for a, v in args.items():
            if isinstance(v, str):
                out["wrong_type_string_as_number"] = [{name: {**args, a: 12345}}, *first[1:]]
                break
    return out


def hermes(calls: Calls) -> str:
    return "\n".join(
        f"<tool_call>{json.dumps({'name': n, 'arguments': a})}</tool_call>" for c in calls for n, a in c.items()
    )


def compare(root: Path) -> dict[str, Any]:
    checker, python = load_checker(root)
    verifier = ToolCallVerifier(strings="bfcl", strict_integers=True)
    defaults = ToolCallVerifier()
    default_agree = 0
    data = root / "bfcl_eval" / "data"
    per_category: dict[str, Counter[str]] = {}
    classes: Counter[tuple[str, bool, bool]] = Counter()
    examples: dict[tuple[str, bool, bool], list[str]] = defaultdict(list)
    by_variant: dict[str, Counter[str]] = defaultdict(Counter)
    ours_seconds = theirs_seconds = 0.0
    runs: list[tuple[list[dict[str, Any]], Calls, Calls, str]] = []
    for category in CATEGORIES:
        entries = read_jsonl(data / f"BFCL_v4_{category}.json")
        answers = {
            row["id"]: row["ground_truth"] for row in read_jsonl(data / "possible_answer" / f"BFCL_v4_{category}.json")
        }
        counts: Counter[str] = Counter()
        for entry in entries:
            answer, functions = answers[entry["id"]], entry["function"]
            for variant, output in candidates(functions, answer, category).items():
                runs.append((functions, output, answer, category))
                started = time.process_time()
                theirs = bool(checker(functions, output, answer, python, category, "stub_model")["valid"])
                theirs_seconds += time.process_time() - started
                started = time.process_time()
                verdict = verifier.verify(hermes(output), answer, tools=functions)
                ours_seconds += time.process_time() - started
                ours = verdict.correct
                default_agree += defaults.verify(hermes(output), answer, tools=functions).correct == theirs
                counts["candidates"] += 1
                counts["agree"] += ours == theirs
                counts["bfcl_valid"] += theirs
                by_variant[variant]["candidates"] += 1
                by_variant[variant]["agree"] += ours == theirs
                by_variant[variant]["bfcl_valid"] += theirs
                if ours != theirs:
                    key = (variant, ours, theirs)
                    classes[key] += 1
                    if len(examples[key]) < 3:
                        examples[key].append(f"{entry['id']} ({verdict.status}: {verdict.details.get('problems')})")
        per_category[category] = counts
    warm_ours, warm_theirs = second_pass(runs, checker, python, verifier)
    return {
        "warm_ours_seconds": warm_ours,
        "warm_theirs_seconds": warm_theirs,
        "categories": per_category,
        "variants": by_variant,
        "classes": classes,
        "examples": examples,
        "ours_seconds": ours_seconds,
        "theirs_seconds": theirs_seconds,
        "default_agree": default_agree,
    }


def second_pass(
    runs: list[tuple[list[dict[str, Any]], Calls, Calls, str]], checker: Any, python: Any, verifier: ToolCallVerifier
) -> tuple[float, float]:
    """CPU seconds of both over the same candidates again: every schema compiled, every row's tools cached."""
    ours = theirs = 0.0
    for functions, output, answer, category in runs:
        started = time.process_time()
        checker(functions, output, answer, python, category, "stub_model")
        theirs += time.process_time() - started
        started = time.process_time()
        verifier.verify(hermes(output), answer, tools=functions)
        ours += time.process_time() - started
    return ours, theirs


def report(result: dict[str, Any]) -> str:
    total = sum(c["candidates"] for c in result["categories"].values())
    agree = sum(c["agree"] for c in result["categories"].values())
    lines = [
        SECTION,
        "",
        "BFCL's own checker (`ast_checker`, run from the fetched gorilla repository, its model registry stubbed) and "
        "`tool_call` with `strings: bfcl, strict_integers: true`, on candidates built from BFCL v4's possible "
        "answers: right calls in several spellings and wrong ones (see the script's docstring). BFCL ships no "
        "model results, so the candidates are built, not sampled."
        + (f" BFCL at {result['source']}." if result.get("source") else ""),
        "",
        f"**Agreement: {agree}/{total} candidates ({100 * agree / total:.2f}%).** CPU time to judge them all, same "
        f"run: ours {result['ours_seconds']:.2f} s (parsing the Hermes text and checking JSON Schema included, each "
        f"schema compiled on first sight), BFCL's checker {result['theirs_seconds']:.2f} s on the parsed calls "
        f"({result['ours_seconds'] / result['theirs_seconds']:.1f}x); a second pass over the same candidates "
        f"(schemas compiled, tools cached): ours {result['warm_ours_seconds']:.2f} s, BFCL's "
        f"{result['warm_theirs_seconds']:.2f} s ({result['warm_ours_seconds'] / result['warm_theirs_seconds']:.1f}x). "
        "With the verifier's defaults (`strings: exact`, "
        f"`5.0` accepted for an integer) the agreement is {result['default_agree']}/{total} "
        f"({100 * result['default_agree'] / total:.2f}%): those two rules are where the defaults differ from BFCL's "
        "on purpose.",
        "",
        "| category | candidates | BFCL valid | agree | agreement |",
        "| --- | --- | --- | --- | --- |",
    ]
    for category, c in result["categories"].items():
        share = 100 * c["agree"] / c["candidates"]
        lines.append(f"| {category} | {c['candidates']} | {c['bfcl_valid']} | {c['agree']} | {share:.2f}% |")
    lines += ["", "| variant | candidates | BFCL valid | agreement |", "| --- | --- | --- | --- |"]
    for variant, c in sorted(result["variants"].items()):
        lines.append(
            f"| {variant} | {c['candidates']} | {c['bfcl_valid']} | {100 * c['agree'] / c['candidates']:.2f}% |"
        )
    lines += [
        "",
        "Disagreements by class (variant, ours, BFCL's). On BFCL v4 they come from three causes: a possible answer "
        "that breaks its own function's schema (`True` for a string, `None` for a number, a variable name such as "
        "`data['sales']` for an array, fruit names for integers): BFCL's type check lets it through as a "
        "'variable', our JSON-Schema check rejects it (`schema_violation`); a possible answer that names an "
        "argument its function does not declare (`permeability`, `type`): BFCL rejects its own answer as an "
        "unexpected parameter, JSON Schema (no `additionalProperties: false`) accepts it; and BFCL's greedy "
        "pairing of parallel calls, which takes the first output that fits a possible answer and can leave a "
        "later one unmatched (`parallel_178` reversed), where our optimal pairing finds the match.",
        "",
    ]
    if not result["classes"]:
        lines.append("none")
    for (variant, ours, theirs), count in result["classes"].most_common():
        shown = "; ".join(result["examples"][(variant, ours, theirs)])
        said = f"ours {'valid' if ours else 'invalid'}, BFCL {'valid' if theirs else 'invalid'}"
        lines.append(f"* `{variant}`: {said}: {count} (e.g. {shown})")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bfcl", type=Path, required=True, help="the berkeley-function-call-leaderboard folder")
    parser.add_argument("--write", type=Path, help="replace this section of a markdown file with the report")
    parser.add_argument("--source", default="", help="where the BFCL copy came from (a repository and commit)")
    args = parser.parse_args()
    result = compare(args.bfcl)
    result["source"] = args.source
    text = report(result)
    print(text)
    if args.write:
        old = args.write.read_text(encoding="utf-8") if args.write.exists() else ""
        start = old.find(SECTION)
        if start >= 0:
            end = old.find("\n## ", start + len(SECTION))
            old = old[:start] + old[end + 1 :] if end >= 0 else old[:start]
        args.write.write_text(old.rstrip("\n") + "\n\n" + text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
