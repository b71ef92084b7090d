"""Every built-in compiled language on both backends (local, and docker on the languages image): correct, wrong,
partly correct, compile-error, TLE, MLE and crashing programs, each language's program compiled once per backend (a
behaviour per input, language_programs.py); a cache hit skips the compile step."""

from __future__ import annotations

import os
import shutil

import pytest
from language_programs import BEHAVIOURS, BROKEN, FENCES, LANGUAGE_NAMES

import rewardkit as rk
from rewardkit.sandbox.docker.image_languages import LANGUAGES_IMAGE
from rk_testing import docker_problem, require

SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin"  # the local sandbox's own PATH: what it can run
LANGUAGES = sorted(BEHAVIOURS)


@pytest.fixture(scope="module", params=["local", pytest.param("docker", marks=pytest.mark.docker)])
def verifier(request):
    options = {}
    if request.param == "docker":
        problem = docker_problem(LANGUAGES_IMAGE)
        require(problem is None, f"{problem} (`make sandbox-image-languages`)")
        options = {"image": LANGUAGES_IMAGE, "pool_size": 2}
    else:
        require(shutil.which("bwrap") is not None or os.geteuid() == 0, "no isolation tool for the local sandbox")
    with rk.get_verifier(
        "code", sandbox=request.param, sandbox_options=options, time_limit=1.0, memory_limit=64 << 20
    ) as v:
        yield v


def completion(language: str, source: str) -> str:
    return f"Here is my solution.\n\n```{FENCES[language]}\n{source}\n```\n"


def toolchain(verifier, language: str) -> None:
    if verifier.sandbox_name == "docker":
        return  # the languages image holds every toolchain (`make sandbox-image-languages`)
    tool = rk.get_language(LANGUAGE_NAMES[language]).version_argv[0]
    require(shutil.which(tool, path=SANDBOX_PATH) is not None, f"no {tool} on the sandbox's PATH ({SANDBOX_PATH})")


def sums(*firsts: int) -> dict[str, list[str]]:
    return {"inputs": [f"{a} {a + 5}\n" for a in firsts], "outputs": [f"{2 * a + 5}\n" for a in firsts]}


def judge(verifier, language: str, reference) -> rk.Verdict:
    toolchain(verifier, language)
    return verifier.verify(completion(language, BEHAVIOURS[language]), reference)


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_correct_program_passes_every_test(verifier, language):
    verdict = judge(verifier, language, {"inputs": ["0 5\n", "0 -3\n"], "outputs": ["5\n", "-3\n"]})
    assert (verdict.score, verdict.correct, verdict.status) == (1.0, True, "ok"), verdict.details
    assert verdict.details["language"] == LANGUAGE_NAMES[language]
    assert verdict.details["statuses"] == {"AC": 2}


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_wrong_program_fails_with_wrong_answer(verifier, language):
    verdict = judge(verifier, language, {"inputs": ["1 5\n"], "outputs": ["6\n"]})
    assert (verdict.score, verdict.correct, verdict.status) == (0.0, False, "ok")
    assert [t["status"] for t in verdict.details["tests"]] == ["WA"]


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_partly_correct_program_earns_the_fraction_it_passes(verifier, language):
    verdict = judge(verifier, language, {"inputs": ["0 5\n", "1 5\n", "0 7\n"], "outputs": ["5\n", "6\n", "7\n"]})
    assert verdict.score == pytest.approx(2 / 3)
    assert [t["status"] for t in verdict.details["tests"]] == ["AC", "WA", "AC"]


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_program_that_does_not_compile_is_a_compile_error(verifier, language):
    toolchain(verifier, language)
    verdict = verifier.verify(completion(language, BROKEN[language]), sums(0))
    assert (verdict.score, verdict.status) == (0.0, "compile_error"), verdict.details
    assert verdict.details["compiler"].strip()  # the compiler's first lines


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_program_that_runs_forever_is_a_time_limit(verifier, language):
    verdict = judge(verifier, language, {"inputs": ["0 1\n", "2 0\n"], "outputs": ["1\n", "2\n"]})
    assert (verdict.score, verdict.status) == (0.5, "timeout"), verdict.details
    assert [t["status"] for t in verdict.details["tests"]] == ["AC", "TLE"]


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_program_past_its_memory_limit_is_a_memory_limit(verifier, language):
    verdict = judge(verifier, language, {"inputs": ["3 0\n"], "outputs": ["3\n"]})
    assert (verdict.score, verdict.status) == (0.0, "memory_limit"), verdict.details
    assert [t["status"] for t in verdict.details["tests"]] == ["MLE"]


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_crashing_program_is_a_runtime_error(verifier, language):
    verdict = judge(verifier, language, {"inputs": ["4 0\n", "0 2\n"], "outputs": ["4\n", "2\n"]})
    assert (verdict.score, verdict.status) == (0.5, "runtime_error"), verdict.details
    assert [t["status"] for t in verdict.details["tests"]] == ["RE", "AC"]


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_cache_hit_skips_the_compile_step(verifier, language):
    judge(verifier, language, sums(0))  # built here, or by an earlier test of the module
    before = dict(verifier.builds.counts)
    verdict = judge(verifier, language, sums(0, 0))
    assert verdict.score == 1.0 and verdict.details["compile_cached"] is True
    assert verifier.builds.counts["compiles"] == before["compiles"]
    assert verifier.builds.counts["hits"] == before["hits"] + 1
