"""Nothing a docker run leaves reaches the next run in the same container (cross_run_cases.py): every run is PID
1 of namespaces of its own, with a fresh /proc, tmpfs and IPC namespace, and the container's cgroup hidden."""

from __future__ import annotations

import pytest

import rewardkit as rk
from cross_run_cases import READER, READER_REFERENCE, REFERENCE, WRITERS, seen_by_reader, writer
from rk_testing import docker_problem, require

pytestmark = [pytest.mark.docker, pytest.mark.hostile]


@pytest.mark.parametrize("kind", WRITERS)
@pytest.mark.parametrize("zygote", [True, False], ids=["zygote", "exec"])
def test_nothing_a_run_leaves_reaches_the_next_run_in_the_container(zygote: bool, kind: str) -> None:
    problem = docker_problem()
    require(problem is None, str(problem))
    options = {"pool_size": 1, "zygote": zygote}
    with rk.get_verifier("code", sandbox="docker", sandbox_options=options, wall_time=8, workers=1) as verifier:
        container = verifier.sandbox.pool._idle.queue[0].container.id
        seen = {}
        for signal in (0, 1, 0, 1):
            wrote = verifier.verify(writer(signal, kind), REFERENCE)
            assert (wrote.score, wrote.status) == (1.0, "ok"), wrote
            read = verifier.verify(READER, READER_REFERENCE)
            assert read.correct, read
            seen.setdefault(signal, []).append(seen_by_reader(read.details["stderr_tail"]))
        assert verifier.sandbox.pool._idle.queue[0].container.id == container  # one container served every run
        assert seen[0][0] == seen[0][1] == seen[1][0] == seen[1][1], seen
        assert seen[1][0]["pids"] == [2, 3] and seen[1][0]["cgroup counters"] == {}
