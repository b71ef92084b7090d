"""Competitive-programming judging: open-r1's Codeforces rows (official tests, a generated Python checker, time
and memory limits, file IO) and IOI rows (subtasks: points times the lowest test score, early stop inside a
subtask), testlib-style C++ checkers, the time scale factor, and language selection from a row."""

from __future__ import annotations

import json
import os
import shutil

import pytest

import rewardkit as rk
from rk_testing import require

SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin"

# Prints any one divisor of n greater than 1 (n itself when n is prime): many answers are right.
DIVISOR = r"""
#include <cstdio>
int main() {
    long n; std::scanf("%ld", &n);
    for (long d = 2; d <= n; d++) if (n % d == 0) { std::printf("%ld\n", d); return 0; }
}
"""
LARGEST_DIVISOR = r"""
#include <cstdio>
int main() { long n; std::scanf("%ld", &n); std::printf("%ld\n", n); }
"""
WRONG_DIVISOR = r"""
#include <cstdio>
int main() { long n; std::scanf("%ld", &n); std::printf("%ld\n", n + 1); }
"""
CHECKER_PY = """
import sys
n = int(open(sys.argv[1]).read())
got = open(sys.argv[3]).read().split()
ok = len(got) == 1 and got[0].lstrip("-").isdigit() and 1 < int(got[0]) <= n and n % int(got[0]) == 0
print(1 if ok else 0)
"""
# argv: input output answer (testlib's order); exit status 0 accepts, 1 is a wrong answer
CHECKER_CPP = r"""
#include <cstdio>
int main(int argc, char **argv) {
    long n = 0, d = 0;
    FILE *in = std::fopen(argv[1], "r"), *out = std::fopen(argv[2], "r");
    if (!in || std::fscanf(in, "%ld", &n) != 1) return 3;
    if (!out || std::fscanf(out, "%ld", &d) != 1) return 1;
    return (d > 1 && d <= n && n % d == 0) ? 0 : 1;
}
"""
# Subtask 1: n <= 10; subtask 2: any n. Sums 1..n: the slow program loops, the wrong one overflows past 10.
SUM_SLOW = r"""
#include <cstdio>
int main() {
    long n; std::scanf("%ld", &n);
    if (n > 10) for (volatile long i = 0;; i++);
    std::printf("%ld\n", n * (n + 1) / 2);
}
"""
SUM_FAST = r"""
#include <cstdio>
int main() { long n; std::scanf("%ld", &n); std::printf("%ld\n", n * (n + 1) / 2); }
"""
FILE_IO = r"""
#include <cstdio>
int main() { long a, b; FILE *in = std::fopen("input.txt", "r"); std::fscanf(in, "%ld %ld", &a, &b);
             FILE *out = std::fopen("output.txt", "w"); std::fprintf(out, "%ld\n", a * b); std::fclose(out); }
"""
SPIN_ONE_SECOND = r"""
#include <cstdio>
#include <ctime>
int main() { long n; std::scanf("%ld", &n); while (std::clock() < CLOCKS_PER_SEC) {} std::printf("%ld\n", n); }
"""
BIG_ARRAY = r"""
#include <cstdio>
#include <vector>
int main() { long n; std::scanf("%ld", &n); std::vector<long> v(100 << 17, n); std::printf("%ld\n", v[n]); }
"""


@pytest.fixture(scope="module")
def verifier():
    require(shutil.which("bwrap") is not None or os.geteuid() == 0, "no isolation tool for the local sandbox")
    require(shutil.which("g++", path=SANDBOX_PATH) is not None, f"no g++ on the sandbox's PATH ({SANDBOX_PATH})")
    with rk.get_verifier("code", sandbox="local") as v:
        yield v


def cpp(source: str) -> str:
    return f"```cpp\n{source}\n```"


def codeforces_row(**extra):
    row = {
        "official_tests": [{"input": "12\n", "output": "2\n"}, {"input": "49\n", "output": "7\n"}],
        "time_limit": 1.0,
        "memory_limit": 256,
        "input_mode": "stdio",
    }
    row.update(extra)
    return row


def test_a_codeforces_row_with_a_generated_checker_accepts_any_right_answer(verifier):
    row = codeforces_row(generated_checker=CHECKER_PY)
    for source in (DIVISOR, LARGEST_DIVISOR):  # "2, 7" and "12, 49": both right, neither the expected output
        verdict = verifier.verify(cpp(source), row["official_tests"], reference_column="official_tests", **row)
        assert (verdict.score, verdict.correct) == (1.0, True), verdict.details
        assert verdict.details["layout"] == "codeforces"
    verdict = verifier.verify(cpp(WRONG_DIVISOR), json.dumps(row))  # the whole row as one JSON cell
    assert (verdict.score, verdict.correct, verdict.status) == (0.0, False, "ok")
    assert [t["status"] for t in verdict.details["tests"]] == ["WA", "WA"]


def test_without_a_checker_the_answer_is_compared_token_by_token(verifier):
    row = codeforces_row()
    assert verifier.verify(cpp(DIVISOR), row).score == 1.0
    assert verifier.verify(cpp(LARGEST_DIVISOR), row).score == 0.0  # right, but not the expected tokens


def test_a_testlib_style_cpp_checker_from_the_dataset_judges_in_the_sandbox(verifier):
    row = codeforces_row(checker=CHECKER_CPP, checker_type="testlib")
    assert verifier.verify(cpp(LARGEST_DIVISOR), row).score == 1.0
    verdict = verifier.verify(cpp(WRONG_DIVISOR), row)
    assert verdict.score == 0.0 and [t["status"] for t in verdict.details["tests"]] == ["WA", "WA"]


# testlib's quitp(points, msg): "points <value> <msg>" on stderr and exit status 7. Here: a divisor earns the
# fraction d / n of the test (n itself: 1, the whole test); "scale" gives points out of 100 instead.
CHECKER_POINTS = r"""
#include <cstdio>
#include <cstring>
int main(int argc, char **argv) {
    long n = 0, d = 0;
    FILE *in = std::fopen(argv[1], "r"), *out = std::fopen(argv[2], "r");
    if (!in || std::fscanf(in, "%ld", &n) != 1) return 3;
    if (!out || std::fscanf(out, "%ld", &d) != 1) { std::fprintf(stderr, "wrong answer no number"); return 1; }
    if (d <= 1 || d > n || n % d != 0) { std::fprintf(stderr, "wrong answer not a divisor"); return 1; }
    if (d == n) { std::fprintf(stderr, "ok the number itself"); return 0; }
    std::fprintf(stderr, "points %g a proper divisor", SCALE * (double)d / (double)n);
    return 7;
}
"""


@pytest.mark.parametrize("scale", [1, 100])
def test_a_testlib_checkers_points_are_the_tests_fraction_when_they_are_one(verifier, scale):
    row = codeforces_row(checker=f"#define SCALE {scale}\n{CHECKER_POINTS}", checker_type="testlib")
    verdict = verifier.verify(cpp(DIVISOR), row)  # 2 of 12, 7 of 49: both proper divisors
    tests = verdict.details["tests"]
    if scale == 1:
        assert [t["status"] for t in tests] == ["PA", "PA"], verdict.details
        assert [t["score"] for t in tests] == pytest.approx([2 / 12, 7 / 49], abs=1e-5)
        assert verdict.score == pytest.approx((2 / 12 + 7 / 49) / 2, abs=1e-5) and not verdict.correct
    else:  # points out of 100 are on a scale only the problem knows: the checker's failure, never credit
        assert all(t.get("checker_failed") and t["score"] == 0.0 for t in tests), verdict.details
    assert verifier.verify(cpp(LARGEST_DIVISOR), row).score == 1.0


def test_a_checker_that_needs_testlib_h_the_row_does_not_ship_is_the_datasets_fault(verifier):
    row = codeforces_row(checker='#include "testlib.h"\nint main(int c, char **v) { registerTestlibCmd(c, v); }\n')
    verdict = verifier.verify(cpp(DIVISOR), row)
    assert verdict.status == "invalid_reference" and "testlib.h" in verdict.details["error"]
    assert rk.is_infrastructure_failure(verdict.status)


def test_the_rows_time_limit_holds_and_the_time_scale_stretches_it(verifier):
    row = codeforces_row(time_limit=0.5, official_tests=[{"input": "3\n", "output": "3\n"}])
    verdict = verifier.verify(cpp(SPIN_ONE_SECOND), row)
    assert (verdict.status, verdict.details["tests"][0]["status"]) == ("timeout", "TLE")
    with rk.get_verifier("code", sandbox="local", time_scale=4.0) as scaled:
        assert scaled.verify(cpp(SPIN_ONE_SECOND), row).score == 1.0


def test_the_rows_memory_limit_holds(verifier):
    tests = [{"input": "3\n", "output": "3\n"}]
    verdict = verifier.verify(cpp(BIG_ARRAY), codeforces_row(memory_limit=64, official_tests=tests))
    assert (verdict.status, verdict.details["tests"][0]["status"]) == ("memory_limit", "MLE")
    assert verifier.verify(cpp(BIG_ARRAY), codeforces_row(memory_limit=256, official_tests=tests)).score == 1.0


def test_file_input_mode_gives_input_txt_and_reads_output_txt(verifier):
    row = codeforces_row(input_mode="file", official_tests=[{"input": "6 7\n", "output": "42\n"}])
    assert verifier.verify(cpp(FILE_IO), row).score == 1.0


def ioi_row():
    cases = {f"t{n}": {"input": f"{n}\n", "output": f"{n * (n + 1) // 2}\n"} for n in (1, 5, 10, 20, 30, 40)}
    return {
        "subtasks": [
            {"subtask": "small", "score": 30, "test_names": ["t1", "t5", "t10"]},
            {"subtask": "full", "score": 70, "test_names": ["t1", "t20", "t30", "t40"]},
        ],
        "test_cases": cases,
        "time_limit": 0.5,
        "memory_limit": 256,
    }


def test_ioi_subtasks_earn_their_points_times_the_lowest_test_score(verifier):
    verdict = verifier.verify(cpp(SUM_FAST), ioi_row())
    assert (verdict.score, verdict.details["points"], verdict.details["max_points"]) == (1.0, 100, 100)
    slow = verifier.verify(cpp(SUM_SLOW), ioi_row())
    assert slow.details["points"] == 30 and slow.score == pytest.approx(0.3)
    assert [s["earned"] for s in slow.details["subtasks"]] == [30, 0]
    statuses = {t["name"]: t["status"] for t in slow.details["tests"]}
    # t1 is judged once for both subtasks; after t20 fails, the rest of its subtask is skipped
    assert statuses == {"t1": "AC", "t5": "AC", "t10": "AC", "t20": "TLE", "t30": "SKIP", "t40": "SKIP"}


def test_an_open_r1_ioi_row_is_one_subtask_with_its_test_names(verifier):
    row = ioi_row()
    single = {"subtask": "full", "score": 70, "test_names": ["t1", "t20"], "test_cases": row["test_cases"]}
    assert verifier.verify(cpp(SUM_FAST), single).details["points"] == 70
    assert verifier.verify(cpp(SUM_SLOW), single).details["points"] == 0


def test_a_python_program_on_a_codeforces_row_is_judged_by_the_same_judge(verifier):
    row = codeforces_row(generated_checker=CHECKER_PY)
    verdict = verifier.verify("```python\nn = int(input())\nprint(n)\n```", row)
    assert (verdict.score, verdict.details["language"]) == (1.0, "python")


def test_a_row_that_asks_for_another_language_is_a_language_mismatch(verifier):
    row = {"inputs": ["1\n"], "outputs": ["1\n"]}
    verdict = verifier.verify(cpp(LARGEST_DIVISOR), row, language="java")  # the row's language column
    assert (verdict.score, verdict.status) == (0.0, "language_mismatch")
    assert not rk.is_infrastructure_failure(verdict.status)
    info = {"language": "cpp", "test_cases": [{"input": "12\n", "output": "12\n", "type": "stdin_stdout"}]}
    assert verifier.verify(cpp(LARGEST_DIVISOR), info).score == 1.0
    assert verifier.verify("```python\nprint(input())\n```", info).status == "language_mismatch"


def test_cpp_for_python_function_tests_is_a_language_mismatch_not_a_python_compile_error(verifier):
    verdict = verifier.verify(cpp(SUM_FAST), "assert add(1, 2) == 3")
    assert (verdict.score, verdict.status) == (0.0, "language_mismatch")


def test_the_language_parameter_picks_the_block_and_the_language(verifier):
    with rk.get_verifier("code", sandbox="local", language="cpp20") as v:
        text = (
            "Python first:\n```python\nprint(1)\n```\nThen C++:\n```cpp\n" + SUM_FAST + "\n```\nOutput:\n```\n10\n```"
        )
        verdict = v.verify(text, {"inputs": ["4\n"], "outputs": ["10\n"]})
        assert (verdict.score, verdict.details["language"]) == (1.0, "cpp20")
        assert v.verify("```python\nprint(10)\n```", {"inputs": ["4\n"], "outputs": ["10\n"]}).status == (
            "language_mismatch"
        )
    with pytest.raises(rk.ConfigError, match="unknown language 'cobol'"):
        rk.get_verifier("code", language="cobol")


def test_the_code_reward_reads_codeforces_columns_from_trl_rows(verifier):
    row = codeforces_row(generated_checker=CHECKER_PY)
    reward = rk.get_reward("code_pass_rate", reference_key="official_tests")
    try:
        scores = reward(
            prompts=["divisor?", "divisor?"],
            completions=[cpp(LARGEST_DIVISOR), cpp(WRONG_DIVISOR)],
            official_tests=[row["official_tests"]] * 2,
            generated_checker=[CHECKER_PY] * 2,
            time_limit=[1.0] * 2,
            memory_limit=[256] * 2,
        )
    finally:
        reward.close()
    assert scores == [1.0, 0.0]


def test_the_judges_own_copy_of_large_tests_does_not_count_against_the_programs_memory(verifier):
    first_number = '#include <cstdio>\nint main() { long n; std::scanf("%ld", &n); std::printf("%ld\\n", n); }'
    big = "7\n" + "1 " * (4 << 20) + "\n"  # 8 MB a test, 80 MB in all: more than the memory limit
    row = codeforces_row(memory_limit=32, official_tests=[{"input": big, "output": "7\n"}] * 10)
    verdict = verifier.verify(cpp(first_number), row)
    assert verdict.details["statuses"] == {"AC": 10}, verdict.details
    assert max(t["memory"] for t in verdict.details["tests"]) < 32 << 20


GRADER = r"""
#include <cstdio>
#include "triangle.h"
int main() { int n; std::scanf("%d", &n); std::printf("%lld\n", triangle(n)); }
"""
HEADER = "long long triangle(int n);\n"
TRIANGLE = '#include "triangle.h"\nlong long triangle(int n) { return 1LL * n * (n + 1) / 2; }\n'
TRIANGLE_SMALL_ONLY = '#include "triangle.h"\nlong long triangle(int n) { return n <= 10 ? n * (n + 1) / 2 : 0; }\n'


def test_an_ioi_row_with_a_grader_compiles_the_function_the_program_writes_with_it(verifier):
    row = {
        **ioi_row(),
        "id": "Triangle",
        "grader_files": [["graders/grader.cpp", GRADER], ["graders/triangle.h", HEADER]],
    }
    full = verifier.verify(cpp(TRIANGLE), row)
    assert (full.score, full.details["points"]) == (1.0, 100), full.details
    small = verifier.verify(cpp(TRIANGLE_SMALL_ONLY), row)
    assert [s["earned"] for s in small.details["subtasks"]] == [30, 0]
    with_main = verifier.verify(cpp(TRIANGLE + "int main() { return 0; }\n"), row)  # the grader owns main
    assert with_main.status == "compile_error" and "main" in with_main.details["compiler"]


@pytest.mark.parametrize(
    ("name", "language"),
    [
        ("GNU C++17", "cpp17"),
        ("GNU C++20 (64)", "cpp20"),
        ("c++14", "cpp17"),
        ("GNU C11", "c"),
        ("PyPy 3", "python"),
        ("Python 3", "python"),
        ("Java 11", "java"),
        ("Rust 2021", "rust"),
        ("Node.js", "javascript"),
        ("golang", "go"),
    ],
)
def test_judges_language_names_select_the_builtin_they_stand_for(name, language):
    assert rk.get_language(name).name == language


def test_a_language_no_builtin_stands_for_is_refused_with_what_exists():
    for name in ("Kotlin 1.7", "C#", "cobol"):
        with pytest.raises(rk.ConfigError, match="registered languages: c, cpp17, cpp20"):
            rk.get_language(name)


@pytest.mark.parametrize(
    ("row", "limits"),
    [
        ({"time_limit": 1.5, "memory_limit": 256}, (1.5, 256 << 20)),  # open-r1: seconds, MB
        ({"time_limit": 2000, "memory_limit": 268435456}, (2.0, 256 << 20)),  # milliseconds, bytes
        ({"time_limit": "2 seconds", "memory_limit": "256 megabytes"}, (2.0, 256 << 20)),  # TACO
        ({"time_limit": {"seconds": 2, "nanos": 500000000}, "memory_limit_bytes": 1 << 28}, (2.5, 1 << 28)),  # CC
        ({"time_limit": "soon", "memory_limit": None}, (None, None)),
    ],
)
def test_row_limits_are_read_in_each_datasets_units(row, limits):
    from rewardkit.verifiers.code_tests.native.problem import problem_from_row

    problem = problem_from_row({"inputs": ["1\n"], "outputs": ["1\n"]}, row)
    assert (problem.time_limit, problem.memory_limit) == limits


def test_a_batch_reports_how_many_of_its_programs_were_built_and_how_many_were_cache_hits(verifier):
    program = cpp(SUM_FAST + "// batch metrics\n")
    rows = [{"inputs": ["3\n"], "outputs": ["6\n"]}] * 3
    verdicts = verifier.verify_batch([program] * 3, rows)
    assert verifier.batch_metrics(verdicts) == {"compile_cache/hits": 2.0, "compile_cache/misses": 1.0}
    assert verifier.batch_metrics(verifier.verify_batch([program], rows[:1])) == {
        "compile_cache/hits": 1.0,
        "compile_cache/misses": 0.0,
    }
    assert verifier.batch_metrics([verifier.verify("```python\nprint(6)\n```", rows[0])]) == {}


JAVA_SOLUTION = """import java.util.*;
public class Solution {
    static long twice(long n) { return 2 * n; }
    public static void main(String[] args) { System.out.println(twice(new Scanner(System.in).nextLong())); }
}
"""
JAVA_PACKAGE_PRIVATE = """import java.util.*;
class Helper { static long twice(long n) { return 2 * n; } }
class Program {
    public static void main(String[] args) { System.out.println(Helper.twice(new Scanner(System.in).nextLong())); }
}
"""


@pytest.mark.parametrize("source", [JAVA_SOLUTION, JAVA_PACKAGE_PRIVATE], ids=["public_class", "class_with_main"])
def test_a_java_program_runs_whatever_its_class_is_called(source):
    require(shutil.which("javac", path=SANDBOX_PATH) is not None, f"no javac on the sandbox's PATH ({SANDBOX_PATH})")
    assert rk.get_language("java").for_program(source).source_file in ("Solution.java", "Program.java")
    with rk.get_verifier("code", sandbox="local") as v:
        verdict = v.verify(f"```java\n{source}```", {"inputs": ["21\n"], "outputs": ["42\n"]})
    assert (verdict.score, verdict.details["language"]) == (1.0, "java"), verdict.details
