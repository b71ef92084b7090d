"""Reading references in datasets' layouts, on the host (no sandbox): which form, and which refusals.

Every shape has one reading; what fits none is InvalidReference naming the accepted shapes. Dataset bytes
are untrusted: packed test blobs are unpickled by an unpickler that admits plain data only.
"""

from __future__ import annotations

import base64
import json
import pickle
import pickletools
import zlib
from pathlib import Path

import pytest
from code_dataset_rows import CASES, packed

from rewardkit.sandbox.base import Limits
from rewardkit.verifiers.code_tests.formats import (
    ACCEPTED,
    InvalidReference,
    UnsafeData,
    decode_packed_tests,
    plain_unpickle,
    resolve_reference,
    with_prelude,
)
from rewardkit.verifiers.code_tests.formats.preludes import EXIT_LINE, prompt_code
from rewardkit.verifiers.code_tests.formats.values import MAX_DECODED_BYTES, bounded_decompress
from rewardkit.verifiers.code_tests.harness.code_io_cases import outputs_match
from rewardkit.verifiers.code_tests.job import prepare_job

FORMS = {
    "apps_stdin": "apps_stdio",
    "apps_call": "apps_call",
    "taco_stdin": "apps_stdio",
    "taco_call": "apps_call",
    "mbpp": "mbpp",
    "mbpp_sanitized": "mbpp",
    "humaneval": "humaneval",
    "livecodebench_stdin": "livecodebench_stdio",
    "livecodebench_functional": "livecodebench_call",
    "codecontests": "codecontests",
    "open_r1": "verification_info_stdio",
    "primeintellect": "verification_info_call",
    "kodcode": "pytest",
}


def context_of(case) -> dict:
    row = dict(case.row)
    return {**{k: v for k, v in row.items() if k != case.reference_key}, "reference_column": case.reference_key}


@pytest.mark.parametrize("dataset", sorted(FORMS))
def test_each_layout_is_read_in_its_own_form(dataset: str) -> None:
    case = next(c for c in CASES if c.dataset == dataset)
    resolved = resolve_reference(case.row[case.reference_key], context_of(case), program=case.code)
    assert resolved.form == FORMS[dataset]


def test_test_sets_of_a_row_are_counted_and_public_only_drops_the_others() -> None:
    case = next(c for c in CASES if c.dataset == "codecontests")
    resolved = resolve_reference(case.row["public_tests"], context_of(case))
    assert resolved.sets == {"public_tests": 1, "private_tests": 2, "generated_tests": 2}
    assert len(resolved.spec["inputs"]) == 5
    public = resolve_reference(case.row["public_tests"], context_of(case), public_only=True)
    assert public.sets == {"public_tests": 1}
    lcb = next(c for c in CASES if c.dataset == "livecodebench_stdin")
    assert resolve_reference(lcb.row["public_test_cases"], context_of(lcb)).sets == {"public": 2, "private": 2}
    private_named = {**context_of(lcb), "reference_column": "private_test_cases"}
    assert resolve_reference(lcb.row["private_test_cases"], private_named).sets == {"private": 2}


@pytest.mark.parametrize(
    ("reference", "context", "message"),
    [
        ({"inputs": [[1, 2]], "outputs": [[3]]}, {}, "fn_name"),  # call data without a function: not stdin
        ({"inputs": [{"a": 1}], "outputs": ["1"]}, {}, "must be text"),
        ("def check(candidate):\n    assert candidate(1) == 1\n", {}, "entry_point"),
        ("def helper():\n    assert f(1) == 1\n", {}, "would run"),
        ({"test": "assert f(1) == 1", "entry_point": "f"}, {}, "check"),
        ({"language": "cpp", "test_cases": [{"input": "1", "output": "1"}]}, {}, "language 'cpp'"),
        (
            {
                "test_cases": [
                    {"input": "1", "output": "1", "type": "stdin_stdout"},
                    {"input": [1], "output": [1], "type": "function_call", "fn_name": "f"},
                ]
            },
            {},
            "must all be",
        ),
        (
            [
                {"input": "1", "output": "1", "testtype": "stdin"},
                {"input": "1", "output": "1", "testtype": "functional"},
            ],
            {},
            "all 'stdin' or all",
        ),
        ([{"input": "[1]", "output": "1", "testtype": "functional"}], {}, "func_name"),
        ({"input": ["1"], "output": ["1", "2"]}, {}, "1 inputs and 2 outputs"),
        ({"inputs": ["1"], "outputs": ["1"], "fn_name": "not a name"}, {}, "function name"),
        ({"problem": "x", "tests": 3}, {}, "no known form"),
        ([], {}, "empty list"),
        ([1, 2], {}, "assert strings"),
        (["print(1)"], {}, "no assert"),
        (42, {}, "test code or test data"),
        ("assert f(1) ==", {}, "does not compile"),
        ("import pytest\n\ndef test_x(capsys):\n    assert f() == 1\n", {}, "capsys"),
        (packed([{"input": "1", "output": "1"}]), {"reference_column": "public_tests"}, "not JSON"),
        ('{"inputs": ["1"], "outputs": ["1"]', {"reference_column": "input_output"}, "not JSON.*delimiter"),
        (packed([{"input": "1", "output": "1"}]), {}, "no assert"),
    ],
)
def test_a_reference_in_no_form_is_refused_with_what_is_wrong(reference, context, message) -> None:
    with pytest.raises(InvalidReference, match=message):
        resolve_reference(reference, context, program="def f(x):\n    return x\n")


def test_a_shapeless_reference_names_every_accepted_shape() -> None:
    with pytest.raises(InvalidReference) as raised:
        resolve_reference({"what": 1})
    for shape in ("input_output", "test_list", "public_test_cases", "public_tests", "verification_info", "entry_point"):
        assert shape in str(raised.value) and shape in ACCEPTED


def test_the_leetcode_rule_picks_solution_by_the_program_text() -> None:
    reference = {"inputs": [[1]], "outputs": [[1]], "fn_name": "same"}
    plain = resolve_reference(reference, program="def same(x):\n    return x\n").spec
    leet = resolve_reference(reference, program="class Solution:\n    def same(self, x):\n        return x\n").spec
    assert plain["imports"] == ["same"] and "same(*" in plain["test"]
    assert leet["imports"] == ["Solution"] and "Solution().same(*" in leet["test"]
    assert plain["labels"] == ["same(1) == [1]"]


# -- the plain-data unpickler -------------------------------------------------------------------------


class RunsCode:
    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (Path.write_text, (self.marker, "ran"))


def test_a_pickle_that_would_run_code_is_refused_and_nothing_runs(tmp_path: Path) -> None:
    marker = tmp_path / "ran.txt"
    hostile = pickle.dumps(RunsCode(marker))
    assert any(op.name in ("STACK_GLOBAL", "GLOBAL") for op, _, _ in pickletools.genops(hostile))
    with pytest.raises(UnsafeData, match="opcode"):
        plain_unpickle(hostile)
    blob = base64.b64encode(zlib.compress(hostile)).decode()
    with pytest.raises(UnsafeData):
        decode_packed_tests(blob)
    with pytest.raises(InvalidReference, match="cannot be read safely"):
        resolve_reference(
            json.dumps([{"input": "1", "output": "1", "testtype": "stdin"}]),
            {"reference_column": "public_test_cases", "private_test_cases": blob},
        )
    assert not marker.exists()


@pytest.mark.parametrize("protocol", [0, 2, 4, 5])
def test_hand_built_opcodes_that_call_or_build_objects_are_refused(protocol: int) -> None:
    # GLOBAL + REDUCE (calls os.getcwd), INST, BUILD on a plain list: every one outside the plain-data set
    reduce_ = b"cos\ngetcwd\n(tR."
    inst = b"(ios\ngetcwd\n."
    build = b"]}b."
    for data in (reduce_, inst, build, pickle.dumps(print, protocol=protocol)):
        with pytest.raises(UnsafeData):
            plain_unpickle(data)


def test_plain_data_and_livecodebench_packing_round_trip() -> None:
    simple = {"a": [1, 2.5, None, True, -(10**30)], "b": ("x", "ü"), "c": {"k": []}}
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        assert plain_unpickle(pickle.dumps(simple, protocol=protocol)) == simple
    value = {**simple, "bytes": b"y", "set": {1, 2}, "frozen": frozenset({3})}  # protocol 4 has opcodes for them
    for protocol in (4, 5):
        assert plain_unpickle(pickle.dumps(value, protocol=protocol)) == value
    with pytest.raises(UnsafeData, match="GLOBAL"):  # older protocols build sets by calling set()
        plain_unpickle(pickle.dumps({1, 2}, protocol=2))
    tests = [{"input": "1\n", "output": "2\n", "testtype": "stdin"}]
    assert decode_packed_tests(packed(tests)) == tests
    assert decode_packed_tests(json.dumps(tests)) == tests


def test_a_compressed_blob_that_expands_without_bound_is_refused() -> None:
    bomb = zlib.compress(b"\0" * (MAX_DECODED_BYTES // 64))
    with pytest.raises(UnsafeData, match="expand past"):
        bounded_decompress(bomb, limit=1 << 20)
    with pytest.raises(UnsafeData):
        decode_packed_tests("not base64 at all !!")


# -- what goes before the program -----------------------------------------------------------------------


def test_the_prelude_goes_after_the_docstring_and_future_imports() -> None:
    program = '"""Doc."""\nfrom __future__ import annotations\nimport sys\nprint(1)\n'
    out = with_prelude(program, "import math")
    lines = out.splitlines()
    assert lines[:2] == ['"""Doc."""', "from __future__ import annotations"]
    assert lines[2:4] == [EXIT_LINE, "import math"]
    compile(out, "program.py", "exec")
    assert with_prelude("print(1)\n", "").startswith(EXIT_LINE + "\n")


def test_humaneval_prompt_is_code_only_when_it_defines_the_entry_point() -> None:
    prompt = 'def f(x):\n    """Double."""\n'
    assert prompt_code(prompt, "f") == prompt
    assert prompt_code("Write f(x) that doubles x.", "f") is None
    assert prompt_code(f"Complete this:\n```python\n{prompt}```\nThanks", "f") == prompt
    assert prompt_code(prompt, "g") is None
    assert prompt_code(f"Complete the function below.\n\n{prompt}", "f") == prompt


def test_the_job_carries_the_prompt_and_the_grader_prelude() -> None:
    humaneval = next(c for c in CASES if c.id == "humaneval-body_only")
    job = prepare_job(humaneval.code, humaneval.row["test"], Limits(), context=context_of(humaneval))
    source = job.files["program.py"].decode()
    assert source.startswith(EXIT_LINE) and humaneval.row["prompt"] in source and job.notes["format"] == "humaneval"
    leaning = next(c for c in CASES if c.id == "livecodebench_stdin-grader_imports")
    job = prepare_job(leaning.code, leaning.row["public_test_cases"], Limits(), context=context_of(leaning))
    assert "from typing import *" in job.files["program.py"].decode() and json.loads(job.stdin)["tolerance"] == "value"
    own = next(c for c in CASES if c.id == "livecodebench_stdin-correct")  # imports nothing it does not bind
    source = prepare_job(own.code, own.row["public_test_cases"], Limits(), context=context_of(own)).files["program.py"]
    assert b"from typing" not in source and b"import " not in source and b"setrecursionlimit(50000)" in source


@pytest.mark.parametrize(
    ("program", "needs"),
    [
        ("import sys\nprint(sys.stdin.read())", False),
        ("print(sqrt(2))", True),
        ("def f(x: List[int]):\n    return x", True),
        ("class A:\n    d = deque()", True),
        ("print([Counter(x) for x in 'ab'])", True),
        ("from collections import deque\nq = deque()\ndef f():\n    return q", False),
        ("def f():\n    global heap\n    heap = []\ndef g():\n    return heap", False),
        ("def f(:", True),  # does not compile: keep the prelude (the sandbox reports the error)
    ],
)
def test_the_grader_imports_go_in_only_when_the_program_reads_a_name_they_bind(program, needs) -> None:
    from rewardkit.verifiers.code_tests.formats.preludes import APPS_PRELUDE, LCB_PRELUDE, needed_prelude

    assert (needed_prelude(program, APPS_PRELUDE) == APPS_PRELUDE) is needs
    assert ("from typing import *" in needed_prelude(program, LCB_PRELUDE)) is needs
    assert "setrecursionlimit(50000)" in needed_prelude(program, LCB_PRELUDE)
    setup = "import math\nTAU = 2 * math.pi"  # MBPP setup code that uses its own import stays whole
    assert needed_prelude(program, setup) == setup


# -- output comparison rules ---------------------------------------------------------------------------------


def test_output_rules_of_the_graders() -> None:
    assert outputs_match("\n\n1 2\n", "1 2", None)  # blank lines at both ends
    assert outputs_match("3.0 007", "3 7", "value") and outputs_match("1e2", "100.00", "value")
    assert not outputs_match("100000000000000001", "100000000000000000", "value")
    assert not outputs_match("0.3333333", "0.33333333", "value")
    codecontests = {"flat": True, "ignore_case": True, "relative": False}
    assert outputs_match("yes 2.5", "YES\n2.500001\n", 1e-5, codecontests)
    assert not outputs_match("1000001", "1000000", 1e-5, codecontests)  # absolute, not relative
    assert not outputs_match("yes", "YES", None) and not outputs_match("1 2", "1\n2", None)
