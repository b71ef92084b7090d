"""Native builds and judgements forked from the local sandbox's warm zygote: the same verdicts as the exec'd
path on every kind of program, the zygote really serving them, and a judge that refuses to judge where its
invariants do not hold."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

import rewardkit as rk
from rewardkit.sandbox.base import WarmProgram
from rewardkit.sandbox.lookup import get_language
from rewardkit.verifiers.code_tests.job import warm_program
from rewardkit.verifiers.code_tests.native.judge_job import prepare_judge, read_report
from rewardkit.verifiers.code_tests.native.problem import problem_from_row
from rk_testing import require

SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin"
SUMS = {"inputs": ["2 3\n", "10 -4\n", "7 7\n"], "outputs": ["5\n", "6\n", "14\n"]}
PROGRAMS = {
    "right": '#include <stdio.h>\nint main(void){long a,b;scanf("%ld %ld",&a,&b);printf("%ld\\n",a+b);}',
    "wrong_once": '#include <stdio.h>\nint main(void){long a,b;scanf("%ld %ld",&a,&b);printf("%ld\\n",a==7?0:a+b);}',
    "spins": '#include <stdio.h>\nint main(void){long a,b;scanf("%ld %ld",&a,&b);if(a==10)for(volatile long i=0;;i++);'
    'printf("%ld\\n",a+b);}',
    "eats_memory": "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\nint main(void){long a,b;"
    'scanf("%ld %ld",&a,&b);if(a==2){char*p;while((p=malloc(1<<20)))memset(p,1,1<<20);}printf("%ld\\n",a+b);}',
    "crashes": '#include <stdio.h>\nint main(void){long a,b;scanf("%ld %ld",&a,&b);if(a==7)*(volatile int*)0=1;'
    'printf("%ld\\n",a+b);}',
    "compile_error": "int main(void){ return missing; }",
}


def _needs_local_c() -> None:
    require(os.geteuid() == 0, "the local sandbox's zygotes need root")
    require(shutil.which("bwrap") is not None, "no bubblewrap")
    require(shutil.which("gcc", path=SANDBOX_PATH) is not None, f"no gcc on the sandbox's PATH ({SANDBOX_PATH})")


@pytest.fixture(scope="module")
def both():
    _needs_local_c()
    from rewardkit.sandbox.local.sandbox import LocalSandbox

    warm = LocalSandbox(warm=warm_program())
    cold = LocalSandbox(warm=warm_program(), zygote=False)
    with warm, cold:
        yield warm, cold


def _summary(verdict: rk.Verdict) -> tuple:
    tests = [t["status"] for t in verdict.details.get("tests", [])]
    return verdict.score, verdict.correct, verdict.status, tests


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_a_native_judgement_from_the_zygote_is_the_exec_paths_judgement(both, name) -> None:
    warm, cold = both
    completion = f"```c\n{PROGRAMS[name]}\n```"
    verdicts = []
    for box in (warm, cold):
        with rk.get_verifier("code", sandbox=box, time_limit=1.0, memory_limit=64 << 20) as verifier:
            verdicts.append(verifier.verify(completion, SUMS))
    assert _summary(verdicts[0]) == _summary(verdicts[1]), [v.details for v in verdicts]
    expected = {
        "right": ["AC", "AC", "AC"],
        "wrong_once": ["AC", "AC", "WA"],
        "spins": ["AC", "TLE", "AC"],
        "eats_memory": ["MLE", "AC", "AC"],
        "crashes": ["AC", "AC", "RE"],
        "compile_error": [],
    }[name]
    assert _summary(verdicts[0])[3] == expected, verdicts[0].details
    if name != "compile_error":
        assert {"paths", "caps", "pid1"} <= set(verdicts[0].details["invariants"]), verdicts[0].details
    assert not verdicts[0].is_infrastructure_failure


def test_a_native_judgement_is_served_by_a_zygote_without_any_python_run() -> None:
    _needs_local_c()
    from rewardkit.sandbox.local.sandbox import LocalSandbox

    with LocalSandbox(warm=warm_program()) as box:
        assert box.zygote and box.zygote_pids() == set()
        with rk.get_verifier("code", sandbox=box) as verifier:
            verdict = verifier.verify(f"```c\n{PROGRAMS['right']}\n```", SUMS)
        assert verdict.correct, verdict.details
        assert box.zygote_pids(), "the build and the judge ran without a zygote"
        zygote_dir = box.zygote_dir()
        assert zygote_dir is not None
        assert {"native_judge.py", "native_build.py", "code_supervisor.py"} <= set(os.listdir(zygote_dir))


def test_the_judge_refuses_to_judge_outside_a_pid_namespace_of_its_own(tmp_path) -> None:
    """Run bare on the host (not PID 1, the host's processes around it) the judge reports a harness error and
    runs no test; told that no invariant applies, the same job is judged."""
    require(shutil.which("gcc") is not None, "no gcc")
    source = tmp_path / "main.c"
    source.write_text(PROGRAMS["right"])
    subprocess.run(["gcc", "-O2", "-o", str(tmp_path / "prog"), str(source)], check=True)
    language = get_language("c")
    job = prepare_judge(language, (tmp_path / "prog").read_bytes(), problem_from_row(SUMS), {})
    work = tmp_path / "run"
    work.mkdir()
    for name, data in job.files.items():
        (work / name).write_bytes(data)
    reports = {}
    for invariants in ("paths,caps,pid1", "none"):
        env = {"PATH": "/usr/bin:/bin", "RK_SANDBOX_INVARIANTS": invariants}
        done = subprocess.run(
            [sys.executable, *job.command[1:]], cwd=work, input=job.stdin, capture_output=True, env=env, timeout=60
        )
        reports[invariants] = read_report(job, rk.sandbox.base.RunResult(done.returncode, done.stdout, done.stderr))
    refused = reports["paths,caps,pid1"]
    assert refused is not None and refused["cases"] == [], refused
    assert "refusing to judge" in refused["harness_error"], refused
    judged = reports["none"]
    assert judged is not None and [c["status"] for c in judged["cases"]] == ["AC"] * 3, judged
    assert json.dumps(judged).count("harness_error") == 0


def test_warm_programs_name_the_one_a_run_is_and_share_no_file_name_with_other_bytes() -> None:
    a = WarmProgram(("python3", "a.py"), {"a.py": b"1", "common.py": b"c"})
    b = WarmProgram(("python3", "b.py"), {"b.py": b"2", "common.py": b"c"}, entry="b")
    both = WarmProgram(a.command, a.files, more=(b,))
    assert both.program_for(("python3", "b.py"), {"b.py": b"2", "common.py": b"c", "x": b""}) is b
    assert both.program_for(("python3", "b.py"), {"b.py": b"changed", "common.py": b"c"}) is None
    assert both.all_files() == {"a.py": b"1", "b.py": b"2", "common.py": b"c"}
    clash = WarmProgram(a.command, a.files, more=(WarmProgram(("x",), {"common.py": b"other"}, entry="x"),))
    with pytest.raises(ValueError, match="common.py"):
        clash.all_files()
    served = warm_program()
    assert [p.entry for p in (served, *served.more)] == ["code_supervisor", "native_judge", "native_build"]


def test_a_zygote_refuses_a_warm_program_it_does_not_have() -> None:
    _needs_local_c()
    from rewardkit.sandbox.base import Limits
    from rewardkit.sandbox.local.sandbox import LocalSandbox

    with LocalSandbox(warm=warm_program()) as box:
        pool = box._zygotes  # the pool's own entry point: a host never sends a name its warm program lacks
        assert pool is not None
        result = pool.run({}, b"", Limits(), uid=None, entry="no_such_program")
    assert result.infra_error is not None and "no_such_program" in result.infra_error, result
