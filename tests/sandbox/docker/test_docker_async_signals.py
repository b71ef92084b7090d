"""Aiming a file's async-I/O signal at another process, in the docker backend (real engine): the routes
(``F_SETOWN``, ``F_SETOWN_EX``, ``F_SETSIG``, ``FIOSETOWN``, ``SIOCSPGRP``) used to reach the in-container
supervisor past the seccomp signal guard, SIGKILL and SIGSTOP included; now they fail with EPERM.

The programs run only inside the sandbox containers, the boundary under test here.
"""

from __future__ import annotations

import json

import pytest

import rewardkit as rk
from async_signal_cases import (
    ATTACK_THEN_ANSWER,
    ATTEMPT,
    CLEAN,
    CLEAN_WRONG,
    EXPECTED,
    ORDINARY,
    ORDINARY_EXPECTED,
    REFERENCE,
)
from rewardkit.sandbox.base import Limits
from rewardkit.verifiers.code_tests.job import warm_program
from rk_testing import docker_problem, require

pytestmark = [pytest.mark.docker, pytest.mark.hostile]


@pytest.fixture(scope="module")
def engine() -> None:
    problem = docker_problem()
    require(problem is None, problem or "")


def _run(program: str) -> object:
    with rk.get_sandbox(
        "docker", pool_size=1, limits=Limits(wall_time=20.0, cpu_time=10.0), warm=warm_program()
    ) as box:
        result = box.run(["python3", "main.py"], {"main.py": program})
    assert result.exit_code == 0 and result.infra_error is None, result
    return json.loads(result.stdout.decode().strip().splitlines()[-1])


def test_choosing_an_async_io_signal_target_fails_with_eperm_in_the_container(engine) -> None:
    assert _run(ATTEMPT) == EXPECTED


def test_asyncio_subprocess_multiprocessing_and_sockets_still_work_in_the_container(engine) -> None:
    assert _run(ORDINARY) == ORDINARY_EXPECTED


def test_an_attack_on_the_supervisor_changes_nothing_and_a_clean_program_after_scores_right(engine) -> None:
    with rk.get_verifier("code", sandbox="docker", sandbox_options={"pool_size": 1}, wall_time=10) as v:
        attacked = v.verify(f"```python\n{ATTACK_THEN_ANSWER}```", REFERENCE)
        clean = v.verify(f"```python\n{CLEAN}```", REFERENCE)
        wrong = v.verify(f"```python\n{CLEAN_WRONG}```", REFERENCE)
    assert (attacked.score, attacked.status) == (1.0, "ok"), attacked  # the supervisor was never signalled
    assert (clean.score, clean.status) == (1.0, "ok"), clean
    assert (wrong.score, wrong.correct) == (0.0, False) and wrong.status != "sandbox_error", wrong
