"""Programs that aim a file's async-I/O signal at another process (local backend), judged for real.

Runs ONLY inside the disposable boundary (test_hostile_async_signals.py starts it there): choosing the
target (``F_SETOWN``, ``F_SETOWN_EX``, ``FIOSETOWN``, ``SIOCSPGRP``) or the signal (``F_SETSIG``) must
fail with EPERM on every isolation level, ordinary programs must not notice, and a program that tries
them on the supervisor, and a clean one after it, must score what their answers earn. Not named
test_*.py, so that a plain ``pytest`` never collects it; run bare it refuses at import time.
"""

from __future__ import annotations

import json
import warnings

import pytest

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
from boundary import inside_boundary

_why_not = inside_boundary()
if _why_not is not None:
    raise RuntimeError(f"refusing to run hostile programs outside the disposable boundary: {_why_not}")

import rewardkit as rk
from rewardkit.sandbox.local.sandbox import LocalSandbox

ISOLATIONS = ["bwrap", "unshare", "rlimits"]


def _sandbox(isolation: str) -> LocalSandbox:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # rlimits warns that it has no namespaces
        return LocalSandbox(isolation=isolation)


def _run(isolation: str, program: str) -> object:
    with _sandbox(isolation) as box:
        result = box.run(["python3", "-I", "-S", "main.py"], {"main.py": program})
    assert result.exit_code == 0 and result.infra_error is None, result
    return json.loads(result.stdout.decode().strip().splitlines()[-1])


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_choosing_an_async_io_signal_target_fails_with_eperm(isolation: str) -> None:
    assert _run(isolation, ATTEMPT) == EXPECTED


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_asyncio_subprocess_multiprocessing_and_sockets_still_work(isolation: str) -> None:
    assert _run(isolation, ORDINARY) == ORDINARY_EXPECTED


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_an_attack_on_the_supervisor_changes_nothing_and_a_clean_program_after_scores_right(isolation: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        verifier = rk.get_verifier("code", sandbox="local", sandbox_options={"isolation": isolation}, wall_time=10)
    with verifier as v:
        attacked = v.verify(f"```python\n{ATTACK_THEN_ANSWER}```", REFERENCE)
        clean = v.verify(f"```python\n{CLEAN}```", REFERENCE)
        wrong = v.verify(f"```python\n{CLEAN_WRONG}```", REFERENCE)
    assert (attacked.score, attacked.status) == (1.0, "ok"), attacked
    assert (clean.score, clean.status) == (1.0, "ok"), clean
    assert (wrong.score, wrong.correct) == (0.0, False) and wrong.status != "sandbox_error", wrong
