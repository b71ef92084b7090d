"""The project's hostile-code suite (tests/hostile/hostile_cases.py) against sandbox="docker".

The programs run only inside the sandbox containers, which are the boundary under test here (no network,
caps on pids/memory/CPU, read-only root, unprivileged uid); tests/hostile runs the same cases through
the local backend inside its own outer boundary. Each case must earn no more than it really earns, in
an acceptable status, without an infrastructure failure, leaking nothing; afterwards every container
must be clean and a good solution must still pass.
"""

from __future__ import annotations

import os

import pytest

import rewardkit as rk
from hostile_cases import CASES as BASE_CASES
from hostile_cases import GOOD, GOOD_IO, IO_REF, REF, SECRET, SECRET_ENV
from rk_testing import docker_problem, require
from trust_cases import TRUST_CASES

pytestmark = [pytest.mark.docker, pytest.mark.hostile]
CASES = BASE_CASES + TRUST_CASES

# tests/hostile uses 3 s per verdict, one verdict at a time; the whole suite runs here as one parallel batch,
# so each verdict gets more headroom for the memory cases, whose three allocations to the cap take ~1 s.
SETTINGS = {
    "wall_time": 5.0,
    "memory_bytes": 256 << 20,
    "max_processes": 16,
    "max_output_bytes": 256 << 10,
    "max_scratch_bytes": 16 << 20,
    "max_file_bytes": 8 << 20,
}
UNREACHABLE_PORT = 9  # nothing listens; with network "none" nothing outside the container is reachable anyway


@pytest.fixture(scope="module", params=[True, False], ids=["zygote", "exec"])
def judged(request):
    problem = docker_problem()
    require(problem is None, str(problem))
    os.environ[SECRET_ENV] = SECRET
    try:
        verifier = rk.get_verifier(
            "code",
            sandbox="docker",
            sandbox_options={"pool_size": 2, "scratch_bytes": 16 << 20, "zygote": request.param},
            **SETTINGS,
        )
        with verifier:
            programs = [f"```python\n{c.program.replace('PORT', str(UNREACHABLE_PORT))}```" for c in CASES]
            verdicts = verifier.verify_batch(programs, [c.reference for c in CASES])
            after = verifier.verify_batch([GOOD, GOOD_IO], [REF, IO_REF])
            sandbox = verifier.sandbox
            probe = (
                "import os\nstats = [open(f'/proc/{p}/stat').read() for p in os.listdir('/proc') if p.isdigit()]\n"
                "print(len([s for s in stats if s.rsplit(')', 1)[1].split()[0] != 'Z']),"
                " sorted(os.listdir('/tmp')), os.listdir('/dev/shm'))\n"
            )
            leftovers = [sandbox.run(["python3", "-c", probe], {}).stdout.decode().strip() for _ in range(4)]
            # and from outside the runs, as root in each container: its own processes and dirs as they started
            inside = [
                slot.container.exec_run(["python3", "-c", probe], user="0:0").output.decode().strip()
                for slot in list(sandbox.pool._idle.queue)
            ]
            forked = sandbox.forked_runs
    finally:
        os.environ.pop(SECRET_ENV, None)
    if request.param:  # the zygote served the harness runs (a replaced container's first run included)
        assert forked == len(CASES) + 2
    return dict(zip((c.name for c in CASES), verdicts, strict=False)), after, (request.param, leftovers, inside)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_hostile_program_earns_only_what_it_earns(case, judged):
    verdicts, _, _ = judged
    verdict = verdicts[case.name]
    assert verdict.score <= case.earned + 1e-9, verdict
    if case.earned:
        assert verdict.score == pytest.approx(case.earned), verdict
    assert not verdict.correct or case.earned == 1.0
    if case.statuses:
        assert verdict.status in case.statuses, verdict
    assert not verdict.is_infrastructure_failure, verdict
    assert SECRET not in repr(verdict.to_dict()), "the secret leaked into the verdict"


def test_containers_are_clean_and_a_good_solution_passes_after_the_suite(judged):
    _, after, (zygote, leftovers, inside) = judged
    assert [(v.score, v.correct, v.status) for v in after] == [(1.0, True, "ok")] * 2
    # the probe is PID 1 of a run of its own: it sees itself and a fresh /tmp and /dev/shm, nothing of the suite
    assert leftovers == ["1 ['run'] []"] * 4
    # the containers themselves: PID 1, the supervisor, the probe (zygote: also the template and the next run's
    # pre-forked PID 1 and candidate process); their /tmp and /dev/shm never held a run's files
    assert inside and inside == [f"{6 if zygote else 3} [] []"] * len(inside), inside
