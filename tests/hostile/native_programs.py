"""The native hostile programs (native_cases.py), compiled with the host's gcc and run as untrusted binaries on
the local backend (bubblewrap and unshare) and the docker backend. Runs ONLY inside the boundary (see
test_hostile_native.py); run bare it refuses at import time.

Every case: no attack reports success, the run ends as the case allows and the verdict is the program's own
(never ``infra_error``, never a forged exit), the boundary's other processes live on, nothing reaches the
network, no process or file is left in the boundary, and the next run on the same sandbox finds a fresh world.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time

import pytest

from boundary import inside_boundary

_why_not = inside_boundary()
if _why_not is not None:
    raise RuntimeError(f"refusing to run hostile programs outside the disposable boundary: {_why_not}")

from native_cases import CASES, COMMAND, JUDGED, PRELUDE, PROBE, SUMS, Judged, Native, outcome
from rewardkit.sandbox.base import Limits
from rewardkit.sandbox.docker.image_languages import LANGUAGES_IMAGE
from rewardkit.verifiers.code_tests.job import warm_program
from rk_testing import docker_problem, require

WALL = 3.0
LIMITS = Limits(
    wall_time=WALL,
    cpu_time=WALL,
    memory_bytes=256 << 20,
    max_processes=16,
    max_output_bytes=256 << 10,
    max_scratch_bytes=16 << 20,
    max_file_bytes=8 << 20,
)
BACKENDS = ["bwrap", "unshare", "docker"]
WATCHED_DIRS = ("/tmp", "/dev/shm", "/var/tmp")
# Run as root in each container, outside any run: the processes it holds and what its /tmp and /dev/shm hold.
CONTAINER_PROBE = (
    "import os\nstats = [open(f'/proc/{p}/stat').read() for p in os.listdir('/proc') if p.isdigit()]\n"
    "print(len([s for s in stats if s.rsplit(')', 1)[1].split()[0] != 'Z']), sorted(os.listdir('/tmp')),"
    " os.listdir('/dev/shm'))\n"
)


@pytest.fixture(scope="module")
def binaries(tmp_path_factory) -> dict[str, bytes]:
    gcc = shutil.which("gcc")
    require(gcc is not None, "the native hostile suite compiles its programs with gcc (apt-get install gcc)")
    assert gcc is not None
    out = tmp_path_factory.mktemp("native")
    built = {}
    for name, source in [*((c.name, c.source) for c in CASES), ("probe", PROBE)]:
        (out / f"{name}.c").write_text(PRELUDE + source)
        cmd = [gcc, "-O1", "-static", "-pthread", "-o", str(out / name), str(out / f"{name}.c")]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
        assert done.returncode == 0, f"{name} does not compile:\n{done.stderr}"
        built[name] = (out / name).read_bytes()
    return built


def _containers(sandbox) -> list[str]:
    return [
        slot.container.exec_run(["python3", "-c", CONTAINER_PROBE], user="0:0").output.decode().strip()
        for slot in list(sandbox.pool._idle.queue)
    ]


@pytest.fixture(scope="module", params=BACKENDS)
def sandbox(request, binaries):
    if request.param == "docker":
        problem = docker_problem(LANGUAGES_IMAGE)  # gcc in it, for the judged cases
        require(problem is None, str(problem))
        from rewardkit.sandbox.docker.sandbox import DockerSandbox

        box = DockerSandbox(
            image=LANGUAGES_IMAGE, pool_size=1, limits=LIMITS, scratch_bytes=16 << 20, warm=warm_program()
        )
    else:
        from rewardkit.sandbox.local.sandbox import LocalSandbox

        box = LocalSandbox(isolation=request.param, limits=LIMITS, warm=warm_program())
    with box:
        warm = box.run(COMMAND, {"attack": binaries["probe"]})
        assert warm.exit_code == 0 and warm.stdout.endswith(b"probed\n"), warm
        yield box, _containers(box) if request.param == "docker" else []


@pytest.fixture(scope="module")
def bystander():
    """A process of the boundary's, outside every sandbox: no run may kill it."""
    proc = subprocess.Popen(["sleep", "3600"])
    yield proc
    proc.kill()
    proc.wait()


def _processes() -> dict[int, str]:
    found = {}
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as fh:
                found[int(entry)] = fh.read().replace(b"\0", b" ").decode("latin-1")[:200]
        except OSError:
            pass
    return found


def _entries() -> set[str]:
    return {os.path.join(d, name) for d in WATCHED_DIRS if os.path.isdir(d) for name in os.listdir(d)}


def _left_behind(before: dict[int, str], files_before: set[str], sandbox) -> tuple[dict[int, str], set[str]]:
    """Processes (but the sandbox's warm zygotes) and files that appeared in the boundary and are still there."""
    end = time.monotonic() + 5.0
    while True:
        kept = sandbox.zygote_pids() if hasattr(sandbox, "zygote_pids") else set()
        procs = {
            pid: cmd
            for pid, cmd in _processes().items()
            if pid not in before and pid != os.getpid() and pid not in kept and cmd
        }
        files = _entries() - files_before - {getattr(sandbox, "zygote_dir", lambda: None)()}
        if (not procs and not files) or time.monotonic() > end:
            return procs, files
        time.sleep(0.05)


@pytest.mark.hostile
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_native_attack_is_contained(case: Native, sandbox, binaries, listener, bystander) -> None:
    sandbox, clean_containers = sandbox
    port, hits = listener
    before, files_before = _processes(), _entries()
    started = time.monotonic()
    collect = case.collect if getattr(sandbox, "isolation", None) != "unshare" else ()  # unshare cannot collect
    result = sandbox.run([*COMMAND, str(port)], {"attack": binaries[case.name]}, collect=collect)
    elapsed = time.monotonic() - started

    output = result.stdout + result.stderr
    assert b"BREACH" not in output, output.decode(errors="replace")[-3000:]
    assert result.infra_error is None, result
    assert outcome(result) in case.outcomes, result
    if case.signals:
        assert result.signal in case.signals, result
    if case.exit_code is not None:
        assert (result.exit_code, result.stdout) == (case.exit_code, b"honest\n"), result
    if case.outcomes == ("ok",):
        assert result.stdout.endswith(b"done\n"), result  # it ran every attack to the end
    for name, data in result.files.items():
        assert b"root:x:0:0" not in data, f"collecting {name} followed a symlink out of the scratch dir"
    assert elapsed < WALL + 5.0, f"{case.name} took {elapsed:.1f}s"
    assert bystander.poll() is None, "a run killed a process outside its sandbox"
    assert hits == [], "a run reached the boundary's network"
    procs, files = _left_behind(before, files_before, sandbox)
    assert procs == {}, "processes left behind in the boundary"
    assert files == set(), "files left behind in the boundary"

    probe = sandbox.run(COMMAND, {"attack": binaries["probe"]})
    assert probe.infra_error is None and probe.exit_code == 0, probe
    assert probe.stdout.endswith(b"probed\n") and b"LEFTOVER" not in probe.stdout, probe.stdout.decode()
    if sandbox.name == "docker":
        assert _containers(sandbox) == clean_containers, "a container holds more than it started with"


@pytest.mark.hostile
@pytest.mark.parametrize("case", JUDGED, ids=[c.name for c in JUDGED])
def test_judged_native_attack_earns_only_the_tests_it_solves(case: Judged, sandbox, bystander) -> None:
    sandbox, _ = sandbox
    require(shutil.which("gcc", path="/usr/bin:/bin") is not None, "the local sandbox compiles C with the host's gcc")
    boxes = [sandbox]
    if sandbox.name == "local":  # the build and the judge forked from a warm zygote, and both exec'd cold
        from rewardkit.sandbox.local.sandbox import LocalSandbox

        assert sandbox.zygote, "the local sandbox serves native runs from its zygotes"
        boxes.append(LocalSandbox(isolation=sandbox.isolation, limits=LIMITS, zygote=False))
    try:
        for box in boxes:
            _judged_once(case, box, bystander)
    finally:
        if len(boxes) > 1:
            boxes[-1].close()


def _judged_once(case: Judged, box, bystander) -> None:
    import rewardkit as rk

    before, files_before = _processes(), _entries()
    with rk.get_verifier("code", sandbox=box, time_limit=1.0, memory_limit=64 << 20) as verifier:
        verdict = verifier.verify(f"```c\n{PRELUDE}{case.source}```\n", SUMS)
    path = "zygote" if getattr(box, "zygote", False) else "exec"
    assert not verdict.is_infrastructure_failure, (path, verdict.details)
    assert verdict.details.get("language") == "c" and "compiler" not in verdict.details, verdict.details
    assert verdict.score == pytest.approx(2 / 3) and not verdict.correct, (path, verdict.details)
    assert "paths" in verdict.details["invariants"], verdict.details  # the judge checked its own
    assert bystander.poll() is None, "a run killed a process outside its sandbox"
    procs, files = _left_behind(before, files_before, box)
    assert (procs, files) == ({}, set()), f"left behind in the boundary ({path})"


@pytest.mark.hostile
def test_the_suite_sees_a_breach_where_nothing_holds_the_program(binaries) -> None:
    """Without namespaces (isolation="rlimits") the peek finds the boundary's processes: the checks can fail."""
    import warnings

    from rewardkit.sandbox.local.sandbox import LocalSandbox

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        box = LocalSandbox(isolation="rlimits", limits=LIMITS)
    with box:
        result = box.run(COMMAND, {"attack": binaries["peek_at_the_host"]})
    assert b"BREACH sees pid" in result.stdout, result
