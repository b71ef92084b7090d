"""The code verifier, for real (local sandbox): extraction, the three reference forms, partial credit,
statuses, parallel batches, and no process left behind. Hostile programs live in tests/hostile."""

from __future__ import annotations

import os
import shutil
import time

import pytest

import rewardkit as rk
from rewardkit.sandbox.base import Limits, RunResult, Sandbox
from rewardkit.verifiers.code_tests.extract import extract_program
from rewardkit.verifiers.code_tests.harness.code_io_cases import outputs_match
from rewardkit.verifiers.code_tests.job import InvalidReference, normalize_reference, parse_result, prepare_job
from rk_testing import require

ADD_TESTS = "assert add(1, 2) == 3\nassert add(-1, 1) == 0\nassert add(10, 5) == 15\nassert True\n"


@pytest.fixture(scope="module")
def verifier():
    require(shutil.which("bwrap") is not None or os.geteuid() == 0, "no isolation tool for the local sandbox")
    with rk.get_verifier("code", sandbox="local", wall_time=4) as v:
        yield v


# -- extraction -----------------------------------------------------------------------------------


def test_extraction_prefers_the_last_python_block() -> None:
    text = "First:\n```python\nx = 1\n```\nthen\n```\nplain\n```\nfinally\n```python\nx = 2\n```\nbye"
    assert extract_program(text) == "x = 2\n"


def test_extraction_falls_back_to_the_last_fenced_block_then_the_text() -> None:
    assert extract_program("a\n```js\nalert(1)\n```\n```\nprint(3)\n```") == "print(3)\n"
    assert extract_program("def f():\n    return 1\n") == "def f():\n    return 1\n"
    assert extract_program("Here:\n```python\ndef f():\n    return 1\n") == "def f():\n    return 1\n"


# -- reference forms and partial credit -----------------------------------------------------------


def test_assert_string_counts_each_top_level_assert(verifier) -> None:
    good = verifier.verify("```python\ndef add(a, b):\n    return a + b\n```", ADD_TESTS)
    assert (good.score, good.correct, good.status) == (1.0, True, "ok")
    assert good.details["total"] == 3  # `assert True` is not a test
    half = verifier.verify("def add(a, b):\n    return a + b if a > 0 else 99\n", ADD_TESTS)
    assert half.score == pytest.approx(2 / 3) and not half.correct and half.status == "ok"
    assert [t["outcome"] for t in half.details["tests"]] == ["pass", "fail", "pass"]


def test_humaneval_form_counts_each_assert_in_check(verifier) -> None:
    reference = {
        "test": "def check(candidate):\n    assert candidate('ab') == 'ba'\n"
        "    assert candidate('') == ''\n    for s in ['xyz', 'q']:\n"
        "        assert candidate(s) == s[::-1]\n",
        "entry_point": "rev",
    }
    assert verifier.verify("def rev(s):\n    return s[::-1]\n", reference).correct
    partial = verifier.verify("def rev(s):\n    return s[::-1] if len(s) != 3 else s\n", reference)
    assert partial.score == pytest.approx(2 / 3)
    missing = verifier.verify("def other(s):\n    return s\n", reference)
    assert missing.score == 0.0 and "rev" in str(missing.details.get("errors"))


def test_stdin_stdout_cases_with_whitespace_and_tolerance(verifier) -> None:
    reference = {"inputs": ["1 2\n", "3 4\n", "10 20\n"], "outputs": ["3\n", "7", "30\n\n"]}
    program = "a, b = map(int, input().split())\nprint('  ', a + b, '  ')\n"
    assert verifier.verify(program, reference).correct
    wrong = verifier.verify("a, b = map(int, input().split())\nprint(a + b if a < 5 else 0)\n", reference)
    assert wrong.score == pytest.approx(2 / 3)
    floats = {"inputs": ["2\n"], "outputs": ["0.6666667\n"]}
    approx = "print(2 / 3)\n"
    assert verifier.verify(approx, floats).correct  # decimals: 1e-6 by default
    assert not verifier.verify(approx, {**floats, "tolerance": None}).correct
    with rk.get_verifier("code", wall_time=4, tolerance=None) as exact:
        assert not exact.verify(approx, floats).correct
        assert exact.verify(approx, {**floats, "tolerance": 1e-6}).correct
    integers = {"inputs": ["2\n"], "outputs": ["4\n"]}
    assert not verifier.verify("print(4.0000001)\n", integers).correct  # integers stay exact


def test_outputs_match_rules() -> None:
    assert outputs_match("1  2\r\n3\n\n", "1 2\n3", None)
    assert not outputs_match("1 2\n", "1 2\n3", None)
    assert not outputs_match("yes", "Yes", None)
    assert outputs_match("1.0000001 x", "1 x", 1e-6)
    assert not outputs_match("1.1 x", "1 x", 1e-6)
    assert outputs_match("0.3333333 2.5e-07 1000000.5", "0.33333333 2.5e-7 1000000.0", "auto")
    assert not outputs_match("0.3334", "0.3333", "auto")
    assert not outputs_match("1.0000001", "1", "auto") and not outputs_match("3.0", "3", "auto")
    for bad in ("nan", "inf", "1_000.5", "\uff10.5"):
        assert not outputs_match(bad, "1000.5", "auto")
    assert not outputs_match("0.5", "0.5000001", None)


def test_mutating_an_argument_in_place_is_seen_by_the_test(verifier) -> None:
    tests = "xs = [3, 1, 2]\nsort_in_place(xs)\nassert xs == [1, 2, 3]\n"
    assert verifier.verify("def sort_in_place(v):\n    v.sort()\n", tests).correct
    assert not verifier.verify("def sort_in_place(v):\n    return sorted(v)\n", tests).correct


def test_classes_work_through_handles(verifier) -> None:
    program = (
        "class Stack:\n    def __init__(self):\n        self.items = []\n"
        "    def push(self, x):\n        self.items.append(x)\n    def pop(self):\n        return self.items.pop()\n"
    )
    tests = "s = Stack()\ns.push(1)\ns.push(2)\nassert s.pop() == 2\nassert s.pop() == 1\n"
    assert verifier.verify(program, tests).correct


def test_generators_iterate_and_candidate_objects_compare_by_identity(verifier) -> None:
    program = (
        "def evens(n):\n    return (i for i in range(n) if i % 2 == 0)\n"
        "class P:\n    def __init__(self, x):\n        self.x = x\n    def __eq__(self, other):\n"
        "        return True\n"
    )
    tests = "assert list(evens(5)) == [0, 2, 4]\nassert P(1).x == 1\nassert P(1) == P(2)\n"
    verdict = verifier.verify(program, tests)
    assert [t["outcome"] for t in verdict.details["tests"]] == ["pass", "pass", "fail"]


def test_the_program_compiles_without_the_harness_future_flags(verifier) -> None:
    program = "def f(x: int) -> int:\n    return x\nkind = type(f.__annotations__['x']).__name__\n"
    assert verifier.verify(program, "assert kind == 'type'\n").correct


# -- statuses -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "program,status",
    [
        ("def add(a, b)\n    return a + b\n", "compile_error"),
        ("def add(a, b):\n    return a / 0\n", "runtime_error"),
        ("import nonexistent_module_xyz\n", "runtime_error"),
        ("def add(a, b):\n    while True:\n        pass\n", "timeout"),
        ("def add(a, b):\n    return len(bytearray(1 << 40))\n", "memory_limit"),
        ("def add(a, b):\n    while True:\n        print('x' * 4096)\n", "output_limit"),
    ],
)
def test_statuses(verifier, program: str, status: str) -> None:
    verdict = verifier.verify(program, ADD_TESTS)
    assert (verdict.score, verdict.correct, verdict.status) == (0.0, False, status), verdict
    assert not verdict.is_infrastructure_failure
    assert "stderr_tail" in verdict.details and len(verdict.details["stderr_tail"]) <= 2000


def test_timeout_keeps_credit_already_earned_and_call_timeout_spares_the_rest() -> None:
    program = "def add(a, b):\n    while a == -1:\n        pass\n    return a + b\n"
    with rk.get_verifier("code", wall_time=4, call_timeout=None) as v:
        verdict = v.verify(program, ADD_TESTS)
    assert verdict.status == "timeout" and verdict.score == pytest.approx(1 / 3)
    with rk.get_verifier("code", wall_time=6, call_timeout=1.0) as v:
        spared = v.verify(program, ADD_TESTS)
    assert spared.status == "timeout" and spared.score == pytest.approx(2 / 3)
    with rk.get_verifier("code", wall_time=8) as v:  # call_timeout is 3 s by default
        assert v.config.call_timeout == 3.0
        spared = v.verify(program, ADD_TESTS)
    assert spared.status == "timeout" and spared.score == pytest.approx(2 / 3)


def test_loading_the_program_is_not_bound_by_call_timeout() -> None:
    program = "import time\ntime.sleep(1.5)\ndef add(a, b):\n    return a + b\n"
    with rk.get_verifier("code", wall_time=6, call_timeout=0.5) as v:
        assert v.verify(program, ADD_TESTS).correct


def test_a_crash_costs_one_test_and_the_process_is_restarted_once(verifier) -> None:
    program = "import os\ndef f(x):\n    if x == 3:\n        os._exit(3)\n    return 2 * x + 1\n"
    tests = "".join(f"assert f({i}) == {2 * i + 1}\n" for i in range(20))
    verdict = verifier.verify(program, tests)
    assert verdict.score == pytest.approx(19 / 20) and verdict.status == "runtime_error"
    assert verdict.details["events"]["crashes"] == 1 and verdict.details["events"]["restarts"] == 1


def test_no_answer_and_invalid_reference_are_reported(verifier) -> None:
    assert verifier.verify("   ", ADD_TESTS).status == "no_answer"
    bad = verifier.verify("x = 1", {"inputs": ["1"], "outputs": []})
    assert bad.status == "invalid_reference" and bad.is_infrastructure_failure
    with pytest.raises(InvalidReference, match="'test'"):
        normalize_reference({"tests": "assert 1"})
    with pytest.raises(InvalidReference, match="does not compile"):
        normalize_reference("assert f(1) ==")
    with pytest.raises(InvalidReference, match="no assert"):
        normalize_reference("x = f(1)\nassert True")
    with pytest.raises(InvalidReference, match="check"):
        normalize_reference({"test": "assert f(1) == 1", "entry_point": "f"})
    assert verifier.verify("def f(x):\n    return x\n", "assert f(1) ==").status == "invalid_reference"


def test_a_json_string_reference_is_read_as_its_object(verifier) -> None:
    import json

    reference = json.dumps({"inputs": ["2\n"], "outputs": ["4\n"]})
    assert normalize_reference(reference)["mode"] == "io"
    assert verifier.verify("print(int(input()) * 2)", reference).correct


def test_sandbox_failure_is_not_the_models_fault() -> None:
    class Broken(Sandbox):
        name = "broken"

        def run(self, command, files, *, stdin=None, limits=None, collect=()):
            return RunResult(None, infra_error="engine went away")

    with rk.get_verifier("code", sandbox=Broken()) as v:
        verdict = v.verify("def add(a, b):\n    return a + b\n", ADD_TESTS)
    assert verdict.status == "sandbox_error" and verdict.is_infrastructure_failure
    assert "not the model's fault" in verdict.details["error"]


def test_the_verdict_comes_from_the_nonce_line_only() -> None:
    job = prepare_job("x = 1", ADD_TESTS, Limits())
    forged = b'RKH1 0123 {"tests":[{"outcome":"pass"}]}\n'
    assert parse_result(job, RunResult(0, stdout=forged)).status == "runtime_error"
    real = f'RKH1 {job.nonce} {{"tests":[{{"outcome":"pass"}}],"load":{{"status":"ok"}}}}\n'.encode()
    assert parse_result(job, RunResult(0, stdout=real)).correct
    assert not parse_result(job, RunResult(0, stdout=real + real)).correct  # two reports: trust neither


def test_bad_settings_name_the_field() -> None:
    with pytest.raises(rk.ConfigError, match="wall_time"):
        rk.get_verifier("code", wall_time=-1)
    with pytest.raises(rk.ConfigError, match="unknown parameter.*walltime"):
        rk.get_verifier("code", walltime=3)
    with pytest.raises(rk.ConfigError, match="unknown sandbox 'lokal'"):
        rk.get_verifier("code", sandbox="lokal")
    with pytest.raises(rk.ConfigError, match="tolerance must be 'auto'"):
        rk.get_verifier("code", tolerance="loose")
    with pytest.raises(rk.ConfigError, match="partial_credit: expected true or false"):
        rk.get_verifier("code", partial_credit="no")
    from rewardkit.verifiers.code_tests.verifier import CodeConfig

    with pytest.raises(
        rk.ConfigError, match=r"partial_credit: expected true or false \(a setting of the code verifier\), got int 1"
    ):
        CodeConfig(partial_credit=1)  # type: ignore[arg-type]
    with pytest.raises(rk.ConfigError, match="wall_time: expected a number .*got str 'slow'"):
        CodeConfig(wall_time="slow")  # type: ignore[arg-type]
    with pytest.raises(rk.ConfigError, match="workers must be an integer >= 1"):
        CodeConfig(workers=0)


def test_settings_are_the_sandbox_limits_with_the_verifiers_own_defaults() -> None:
    from dataclasses import fields

    from rewardkit.verifiers.code_tests.verifier import CodeConfig

    assert {f.name: f.default for f in fields(CodeConfig)} == {
        "wall_time": 10.0,
        "cpu_time": None,
        "memory_bytes": 512 << 20,
        "max_processes": 16,
        "max_output_bytes": 1 << 20,
        "max_file_bytes": 16 << 20,
        "max_open_files": 256,
        "max_scratch_bytes": 64 << 20,
        "call_timeout": 3.0,
        "tolerance": "auto",
        "partial_credit": True,
        "public_tests_only": False,
        "workers": None,
        "language": None,
        "time_limit": None,
        "memory_limit": None,
        "time_scale": 1.0,
        "checker_time": 10.0,
        "judge_budget": 300.0,
        "compile_cache_bytes": 512 << 20,
        "compile_cache_dir": None,
    }
    assert CodeConfig().limits() == Limits(max_processes=16)
    assert type(CodeConfig().limits()) is Limits
    assert CodeConfig(wall_time=5, max_open_files=64).limits() == Limits(
        wall_time=5.0, cpu_time=5.0, max_processes=16, max_open_files=64
    )
    assert CodeConfig(wall_time=5, cpu_time=2).limits().cpu_time == 2.0
    with pytest.raises(rk.ConfigError, match="max_processes must be >= 4"):
        rk.get_verifier("code", max_processes=3)
    with pytest.raises(rk.ConfigError, match=r"spec.params.max_processes: expected an integer"):
        rk.build_reward({"reward": "code_pass_rate", "params": {"max_processes": "16"}})
    rk.build_reward({"reward": "code_pass_rate", "params": {"cpu_time": None, "max_processes": 8}}).close()


# -- batches and cleanup --------------------------------------------------------------------------


def _processes_of(sandbox) -> list[int]:
    """Live processes running under the uids this local sandbox hands out (as root: one range per sandbox)."""
    from rewardkit.sandbox.local.sandbox import _UID_SPAN

    low, found = sandbox._uid_base, []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/status") as fh:
                uid = int(next(line for line in fh if line.startswith("Uid:")).split()[1])
        except (OSError, StopIteration):
            continue
        if low <= uid < low + _UID_SPAN:
            found.append(int(pid))
    return found


def test_verify_batch_runs_in_parallel_and_leaves_no_process() -> None:
    programs = ["import time\ndef add(a, b):\n    time.sleep(1)\n    return a + b\n"] * 4
    with rk.get_verifier("code", wall_time=8, workers=4) as v:
        started = time.monotonic()
        verdicts = v.verify_batch(programs, [ADD_TESTS] * 4)
        elapsed = time.monotonic() - started
        sandbox = v.sandbox
    assert [x.score for x in verdicts] == [1.0] * 4
    assert elapsed < 4 * 3.0  # serial would be at least 4 x 3 s of sleeping
    if os.geteuid() == 0:
        assert _processes_of(sandbox) == []


def test_close_releases_everything_and_later_calls_fail_cleanly() -> None:
    v = rk.get_verifier("code", wall_time=3)
    sandbox = v.sandbox
    assert v.verify("def add(a, b):\n    return a + b\n", ADD_TESTS).correct
    v.close()
    v.close()
    after = v.verify("def add(a, b):\n    return a + b\n", ADD_TESTS)
    assert after.status == "sandbox_error"
    if os.geteuid() == 0:
        assert _processes_of(sandbox) == []


# -- repeated tests, crashes, modules (issue 8) ---------------------------------------------------


def test_instrument_marks_sites_that_repeat_and_commits_loops_in_check() -> None:
    from rewardkit.verifiers.code_tests.instrument import instrument

    spec = instrument(
        "def helper(x):\n    assert x\ndef check(candidate):\n    assert candidate(1)\n"
        "    for i in range(3):\n        assert candidate(i) >= 0\n    helper(candidate(2))\n",
        "f",
    )
    assert [s["repeat"] for s in spec["sites"]] == ["function", None, "loop"]
    assert "__rk_commit__((2,))" in spec["statements"][1]
    called = instrument("def check(candidate):\n    assert candidate(1)\ncheck(f)\n", "f")
    assert [s["repeat"] for s in called["sites"]] == ["function"]  # the tests call check themselves


def test_a_loop_is_credited_only_when_it_finishes(verifier) -> None:
    program = "def f(x):\n    while x == 7:\n        pass\n    return 2 * x + 1\n"
    tests = (
        "for x in range(3):\n    assert f(x) == 2 * x + 1\n"
        "for x in range(5, 9):\n    assert f(x) == 2 * x + 1\nassert f(20) == 41\n"
    )
    with rk.get_verifier("code", wall_time=4, call_timeout=None) as whole_budget:
        verdict = whole_budget.verify(program, tests)
        humaneval = {
            "test": "def check(candidate):\n    for x in range(3):\n        assert candidate(x) == 2 * x + 1\n"
            "    assert candidate(7) == 15\n",
            "entry_point": "f",
        }
        kept = whole_budget.verify(program, humaneval)  # the loop finished before the hang: it keeps its credit
    assert [t["outcome"] for t in verdict.details["tests"]] == ["pass", "timeout", "not_run"], verdict
    assert verdict.status == "timeout" and verdict.score == pytest.approx(1 / 3)
    assert [t["outcome"] for t in kept.details["tests"]] == ["pass", "not_run"] and kept.status == "timeout"
    with rk.get_verifier("code", wall_time=4, call_timeout=1.0) as per_call:  # the hang fails its own case only
        spared = per_call.verify(program, tests)
    assert [t["outcome"] for t in spared.details["tests"]] == ["pass", "fail", "pass"], spared
    raising = verifier.verify(
        "def f(x):\n    if x:\n        raise ValueError(x)\n    return 1\n",
        "for x in range(3):\n    got = f(x)\n    assert got == 2 * x + 1\n",
    )
    assert raising.score == 0.0 and raising.details["tests"][0]["outcome"] == "fail"


def test_a_crash_is_never_the_exception_a_test_expects(verifier) -> None:
    reference = {
        "test": "def check(candidate):\n    assert candidate(2) == 5\n    try:\n        candidate(-1)\n"
        "        raised = False\n    except ValueError:\n        raised = True\n    assert raised\n",
        "entry_point": "f",
    }
    raises = verifier.verify("def f(x):\n    if x < 0:\n        raise ValueError(x)\n    return 2 * x + 1\n", reference)
    assert (raises.score, raises.status) == (1.0, "ok"), raises  # a builtin exception crosses as itself
    loose = {**reference, "test": reference["test"].replace("except ValueError:", "except:")}
    for program in (
        "import os\ndef f(x):\n    if x < 0:\n        os._exit(1)\n    return 2 * x + 1\n",
        (
            "import os, signal\ndef f(x):\n    if x < 0:\n        os.kill(os.getpid(), signal.SIGKILL)\n"
            "    return 2 * x + 1\n"
        ),
    ):
        for ref in (reference, loose):
            verdict = verifier.verify(program, ref)
            # SIGKILL reads as the CPU limit's kill: timeout; both are failures, never "pass" or infra
            assert verdict.score == 0.5 and verdict.status in ("runtime_error", "timeout"), verdict


def test_modules_the_program_imports_serve_the_tests(verifier) -> None:
    program = "import math\nimport heapq as hq\ndef f(x):\n    return 2 * x + 1\n"
    verdict = verifier.verify(
        program, "assert math.isclose(f(1.5), 4.0)\nassert hq.nsmallest(2, [f(3), f(1), f(2)]) == [3, 5]\n"
    )
    assert verdict.correct, verdict


def test_the_recorder_credits_only_finished_statements() -> None:
    from rewardkit.verifiers.code_tests.harness.code_procs import Deadline
    from rewardkit.verifiers.code_tests.harness.code_recorder import Recorder

    sites = [
        {"line": 1, "source": "a", "repeat": None},
        {"line": 2, "source": "b", "repeat": "loop"},
        {"line": 3, "source": "c", "repeat": "function"},
    ]
    recorder = Recorder(sites, time.monotonic() + 60)
    recorder(0, True, None)
    recorder(1, True, None)
    recorder(2, True, None)
    assert [o["outcome"] for o in recorder.outcomes] == ["pass", "not_run", "not_run"]  # pending until finished
    assert recorder.finished()
    assert [o["outcome"] for o in recorder.outcomes] == ["pass", "pass", "pass"]
    recorder(1, True, None)
    recorder.cut_short(True)  # a later statement did not finish: loops in it and every helper site lose credit
    assert [o["outcome"] for o in recorder.outcomes] == ["pass", "timeout", "timeout"]
    crashed = Recorder(sites, time.monotonic() + 60)
    crashed.crashed = True  # the candidate crashed and the test code caught it
    crashed(0, True, None)
    assert crashed.outcomes[0]["outcome"] == "fail" and not crashed.crashed
    crashed(1, True, None)
    crashed.crash()  # a crash while a loop's pass is pending: the loop is being broken off
    assert crashed.outcomes[1]["outcome"] == "fail" and crashed.crashed
    late = Recorder(sites, time.monotonic() - 1)
    with pytest.raises(Deadline):
        late(0, True, None)  # past the deadline nothing more is recorded
    assert late.outcomes[0]["outcome"] == "not_run"


# -- partial_credit=False: binary score, stop at the first failing test ------------------------------

HOG = "def f(n):\n    if n == 1:\n        return 0\n    x = [0]\n    while True:\n        x.append(x[-1] + 1)\n"
HOG_TESTS = {
    "test": "def check(candidate):\n" + "".join(f"    assert candidate({n}) == {n}\n" for n in range(1, 6)),
    "entry_point": "f",
}


@pytest.mark.parametrize(
    "program, reference",
    [
        ("def add(a, b):\n    return a + b if a > 0 else 1\n", ADD_TESTS),  # top-level asserts
        (HOG, HOG_TESTS),  # check(candidate): the first assert fails, the second would hang
        ("print(int(input()) * 2)", {"inputs": ["1", "2", "3"], "outputs": ["2", "5", "6"]}),  # stdin/stdout
        (
            "import time\nn = int(input())\nif n > 1: time.sleep(30)\nprint(n)",
            {"inputs": ["2", "1"], "outputs": ["2", "1"]},
        ),  # the first case runs out of time
    ],
)
def test_without_partial_credit_the_first_failure_ends_the_run(verifier, program, reference) -> None:
    partial = verifier.verify(program, reference)
    with rk.get_verifier("code", sandbox="local", wall_time=4, call_timeout=1.0, partial_credit=False) as binary:
        started = time.monotonic()
        verdict = binary.verify(program, reference)
        seconds = time.monotonic() - started
        outcomes = [t["outcome"] for t in verdict.details["tests"]]
        assert verdict.correct is False and verdict.score == 0.0 and partial.correct is False
        assert verdict.details["stopped"] == "first failure"
        failed = next(i for i, outcome in enumerate(outcomes) if outcome != "pass")
        assert outcomes[failed] in ("fail", "timeout") and set(outcomes[failed + 1 :]) == {"not_run"}
        assert outcomes[:failed] == [t["outcome"] for t in partial.details["tests"]][:failed]
        assert seconds < 3.5  # the hang after the first failure never ran (the budget is 4 s)
        passing = binary.verify("def add(a, b):\n    return a + b\n", ADD_TESTS)
        assert (passing.score, passing.correct, passing.status) == (1.0, True, "ok")
        assert "stopped" not in passing.details


def test_the_recorder_stops_at_the_first_failure_when_asked() -> None:
    from rewardkit.verifiers.code_tests.harness.code_recorder import FirstFailure, Recorder

    sites = [{"line": n, "source": str(n), "repeat": None} for n in range(3)]
    recorder = Recorder(sites, time.monotonic() + 60, stop_at_failure=True)
    recorder(0, True, None)
    with pytest.raises(FirstFailure):
        recorder(1, False, None)
    with pytest.raises(FirstFailure):  # test code that swallowed it records nothing more
        recorder(2, True, None)
    assert [o["outcome"] for o in recorder.outcomes] == ["pass", "fail", "not_run"]
    assert not issubclass(FirstFailure, Exception)
    keeps_going = Recorder(sites, time.monotonic() + 60)
    keeps_going(0, False, None)
    keeps_going(1, True, None)
    assert [o["outcome"] for o in keeps_going.outcomes] == ["fail", "pass", "not_run"]
