"""The harness supervisor's own invariants (verifiers/code_tests/harness/code_invariants.py): each check on its
own, the checks each sandbox path makes, and each one failing when the sandbox is broken on purpose (the
sandbox's own source changed back to a hole, in a copy, for one test).

A broken invariant found before any candidate ran is the infrastructure's (``sandbox_error``: not the model's
fault); found after, the supervisor refuses to judge and the run earns nothing (``runtime_error``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

import rewardkit as rk
from rewardkit.sandbox.base import Limits
from rewardkit.verifiers.code_tests.harness import code_invariants as inv
from rewardkit.verifiers.code_tests.job import warm_program
from rk_testing import docker_problem, require

HARNESS = Path(inv.__file__).parent
GOOD = "def f(x):\n    return 2 * x + 1\n"
REF = "assert f(2) == 5\nassert f(3) == 7\n"
USES_LOOPBACK = (
    "import socket\ns = socket.socket()\ns.bind(('127.0.0.1', 0))\ns.listen()\n"
    "c = socket.create_connection(s.getsockname())\nc.close()\n" + GOOD
)
LEAVES_A_QUEUE = "import ctypes\nctypes.CDLL(None).msgget(0, 0o1600)\n" + GOOD
LOCAL_PATHS = [("bwrap", True), ("bwrap", False), ("unshare", True), ("unshare", False)]
LOCAL_IDS = [f"{i}-{'zygote' if z else 'fork-exec'}" for i, z in LOCAL_PATHS]
ZYGOTE_CHECKS = ["paths", "caps", "pid1", "netns", "ipcns", "oom"]
FORK_EXEC_CHECKS = ["paths", "caps", "pid1", "netns", "ipcns"]


def _root_with(*tools: str) -> None:
    require(os.geteuid() == 0 and all(shutil.which(t) for t in tools), f"needs root and {', '.join(tools)}")


# -- each check on its own ------------------------------------------------------------------------------------


def test_which_invariants_a_run_must_meet_come_from_its_environment() -> None:
    assert inv.expected({}) == inv.ALL
    assert inv.expected({inv.ENV: "none"}) == ()
    assert inv.expected({inv.ENV: "paths, caps"}) == ("paths", "caps")
    with pytest.raises(inv.InvariantBroken, match="unknown"):
        inv.expected({inv.ENV: "paths,everything"})
    checker = inv.Checker((), {inv.ENV: "paths,everything"})
    assert checker.names == inv.ALL and "unknown" in (checker.early_failure or "")  # refuses at start


def test_capabilities_must_be_empty_with_no_new_privs_and_a_filter() -> None:
    clean = {name: "0000000000000000" for name in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb")}
    clean.update(NoNewPrivs="1", Seccomp="2")
    inv.check_capabilities(True, clean)
    for name in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"):
        with pytest.raises(inv.InvariantBroken, match=name):
            inv.check_capabilities(True, {**clean, name: "0000000000000400"})
    with pytest.raises(inv.InvariantBroken, match="no_new_privs"):
        inv.check_capabilities(True, {**clean, "NoNewPrivs": "0"})
    with pytest.raises(inv.InvariantBroken, match="seccomp"):
        inv.check_capabilities(True, {**clean, "Seccomp": "0"})
    inv.check_capabilities(False, {**clean, "Seccomp": "0"})  # where the machine has no filter


def _proc_net(tmp_path: Path, dev: str, labels: int = 0) -> str:
    header = "Inter-|   Receive\n face |bytes    packets\n"
    (tmp_path / "dev").write_text(header + dev)
    (tmp_path / "ip6_flowlabel").write_text(
        "Label S Owner  Users  Linger Expires  Dst  Opt\n" + "00001 0 0 1 6 6 0 0\n" * labels
    )
    return str(tmp_path)


def test_a_network_namespace_is_fresh_only_when_nothing_used_it(tmp_path: Path) -> None:
    lo = "    lo: {0} {1} 0 0 0 0 0 0 {0} {1} 0 0 0 0 0 0\n"
    inv.check_fresh_network(_proc_net(tmp_path, lo.format(0, 0)))
    with pytest.raises(inv.InvariantBroken, match="carried packets"):
        inv.check_fresh_network(_proc_net(tmp_path, lo.format(1200, 8)))
    with pytest.raises(inv.InvariantBroken, match="interfaces"):
        inv.check_fresh_network(_proc_net(tmp_path, lo.format(0, 0) + "  eth0: " + "0 " * 16 + "\n"))
    with pytest.raises(inv.InvariantBroken, match="flow label"):
        inv.check_fresh_network(_proc_net(tmp_path, lo.format(0, 0), labels=1))


FRESH_SNMP = (
    "Ip: Forwarding DefaultTTL InReceives OutRequests OutNoRoutes\nIp: 1 64 0 0 {0}\n"
    "Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens\nTcp: 1 200 120000 -1 0\n"
)


def _counted_net(tmp_path: Path, snmp: int = 0, netstat: int = 0, snmp6: int = 0) -> str:
    root = _proc_net(tmp_path, "    lo: 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n")
    (tmp_path / "snmp").write_text(FRESH_SNMP.format(snmp))
    (tmp_path / "netstat").write_text(f"TcpExt: SyncookiesSent EmbryonicRsts\nTcpExt: 0 {netstat}\n")
    (tmp_path / "snmp6").write_text(f"Ip6InReceives                   \t0\nIp6OutNoRoutes                  \t{snmp6}\n")
    return root


def test_a_network_namespace_is_fresh_only_when_its_statistics_counted_nothing(tmp_path: Path) -> None:
    inv.check_fresh_network(_counted_net(tmp_path))  # the settings (Forwarding, DefaultTTL, Rto*) are not counts
    for counted, name in (({"snmp": 3}, "OutNoRoutes=3"), ({"netstat": 1}, "EmbryonicRsts"), ({"snmp6": 5}, "Ip6Out")):
        with pytest.raises(inv.InvariantBroken, match=name):
            inv.check_fresh_network(_counted_net(tmp_path, **counted))


def test_the_sandbox_renews_a_network_namespace_whose_statistics_counted(tmp_path: Path) -> None:
    from rewardkit.sandbox import run_world

    assert run_world.network_used(_counted_net(tmp_path)) is None
    for counted in ({"snmp": 3}, {"netstat": 1}, {"snmp6": 5}):
        assert run_world.network_used(_counted_net(tmp_path, **counted)) is not None, counted


def test_the_sandbox_keeps_a_network_namespace_only_while_no_run_used_it(tmp_path: Path) -> None:
    from rewardkit.sandbox import run_world

    lo = "    lo: {0} {1} 0 0 0 0 0 0 {0} {1} 0 0 0 0 0 0\n"
    assert run_world.network_used(_proc_net(tmp_path, lo.format(0, 0))) is None
    assert run_world.network_used(_proc_net(tmp_path, lo.format(60, 1))) is not None
    assert run_world.network_used(_proc_net(tmp_path, lo.format(0, 0), labels=2)) is not None


def test_an_ipc_namespace_is_fresh_only_without_system_v_objects(tmp_path: Path) -> None:
    for kind in ("shm", "sem", "msg"):
        (tmp_path / kind).write_text("       key      id perms\n")
    inv.check_fresh_ipc(str(tmp_path))
    (tmp_path / "msg").write_text("       key      id perms\n         0       0   600\n")
    with pytest.raises(inv.InvariantBroken, match="msg"):
        inv.check_fresh_ipc(str(tmp_path))


def test_the_run_must_be_the_oom_killers_first_choice_and_keep_no_segment(tmp_path: Path) -> None:
    (tmp_path / "self").mkdir()
    (tmp_path / "sys" / "kernel").mkdir(parents=True)
    (tmp_path / "self" / "oom_score_adj").write_text("1000\n")
    (tmp_path / "sys" / "kernel" / "shm_rmid_forced").write_text("1\n")
    inv.check_oom_first(str(tmp_path))
    (tmp_path / "self" / "oom_score_adj").write_text("0\n")
    with pytest.raises(inv.InvariantBroken, match="OOM score"):
        inv.check_oom_first(str(tmp_path))
    (tmp_path / "self" / "oom_score_adj").write_text("1000\n")
    (tmp_path / "sys" / "kernel" / "shm_rmid_forced").write_text("0\n")
    with pytest.raises(inv.InvariantBroken, match="shm_rmid_forced"):
        inv.check_oom_first(str(tmp_path))


def test_the_supervisor_must_be_alone_as_pid_1() -> None:
    with pytest.raises(inv.InvariantBroken, match="not PID 1"):
        inv.check_alone(())
    _root_with("unshare")
    probe = (
        f"import sys, subprocess; sys.path.insert(0, {str(HARNESS)!r}); import code_invariants as inv\n"
        "inv.check_alone(()); print('alone')\n"
        "child = subprocess.Popen(['sleep', '30'])\n"
        "try:\n    inv.check_alone(())\nexcept inv.InvariantBroken as exc:\n    print('broken', exc)\n"
        "inv.check_alone((child.pid,)); print('allowed'); child.kill()\n"
    )
    done = subprocess.run(
        ["unshare", "--pid", "--fork", "--mount-proc", "/usr/bin/python3", "-I", "-c", probe],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    lines = done.stdout.splitlines()
    assert lines[0] == "alone" and lines[1].startswith("broken processes") and lines[2] == "allowed", done


def test_what_an_unprivileged_uid_could_change_is_found(tmp_path: Path) -> None:
    """Permissions bind only for a uid that is not root: the checks run in a child as nobody."""
    _root_with("setpriv")
    root = Path(tempfile.mkdtemp(prefix="rk-inv-"))
    try:
        (root / "system").mkdir(mode=0o755)
        (root / "system" / "mod.py").write_text("")
        (root / "sticky").mkdir()
        os.chmod(root / "sticky", 0o1777)
        (root / "sticky" / "root_file.py").write_text("")
        os.chmod(root / "sticky" / "root_file.py", 0o444)
        (root / "sticky" / "nobodys.py").write_text("")
        os.chown(root / "sticky" / "nobodys.py", 65534, 65534)
        (root / "open").mkdir()
        os.chmod(root / "open", 0o777)
        (root / "open" / "root_file.py").write_text("")
        os.chmod(root / "open" / "root_file.py", 0o444)
        shutil.copy(inv.__file__, root / "code_invariants.py")
        os.chmod(root, 0o755)
        for path in root.rglob("*"):
            if path.is_file() and path.stat().st_uid == 0:
                os.chmod(path, path.stat().st_mode | 0o444)
        paths = {
            "system dir": root / "system",
            "system file": root / "system" / "mod.py",
            "root file in sticky dir": root / "sticky" / "root_file.py",
            "own file in sticky dir": root / "sticky" / "nobodys.py",
            "sticky dir": root / "sticky",
            "root file in open dir": root / "open" / "root_file.py",
            "missing in open dir": root / "open" / "none.py",
            "missing in system dir": root / "system" / "none.py",
        }
        probe = (
            f"import json, sys; sys.path.insert(0, {str(root)!r}); import code_invariants as inv\n"
            f"paths = {json.dumps({k: str(v) for k, v in paths.items()})}\n"
            "print(json.dumps({k: [inv.writable_by_me(p), inv.replaceable(p)] for k, p in paths.items()}))\n"
        )
        done = subprocess.run(
            ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-I", "-c", probe],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
            cwd="/",
        )
        found = json.loads(done.stdout)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    writable = {name: bool(pair[0]) for name, pair in found.items()}
    swappable = {name: bool(pair[1]) for name, pair in found.items()}
    assert writable == {
        "system dir": False,
        "system file": False,
        "root file in sticky dir": False,  # it may add files next to it, not change this one
        "own file in sticky dir": True,
        "sticky dir": True,  # new modules could appear in it: never a sys.path entry
        "root file in open dir": True,
        "missing in open dir": True,  # it could be made
        "missing in system dir": False,
    }, found
    assert swappable == {**writable, "sticky dir": False}, found


# -- what each path checks ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("isolation", "zygote"), LOCAL_PATHS, ids=LOCAL_IDS)
def test_every_local_path_checks_what_it_guarantees(isolation: str, zygote: bool) -> None:
    _root_with("bwrap" if isolation == "bwrap" else "unshare")
    options = {"isolation": isolation, "zygote": zygote}
    with rk.get_verifier("code", sandbox="local", sandbox_options=options) as verifier:
        verdict = verifier.verify(GOOD, REF)
    assert verdict.correct, verdict
    assert verdict.details["invariants"] == (ZYGOTE_CHECKS if zygote else FORK_EXEC_CHECKS)


def test_the_rlimits_level_promises_nothing_and_checks_nothing() -> None:
    with (
        pytest.warns(RuntimeWarning),
        rk.get_verifier("code", sandbox="local", sandbox_options={"isolation": "rlimits"}) as v,
    ):
        verdict = v.verify(GOOD, REF)
    assert verdict.correct and verdict.details["invariants"] == [], verdict


@pytest.mark.docker
@pytest.mark.parametrize("zygote", [True, False], ids=["zygote", "exec"])
def test_both_docker_paths_check_everything(zygote: bool) -> None:
    problem = docker_problem()
    require(problem is None, str(problem))
    with rk.get_verifier("code", sandbox="docker", sandbox_options={"pool_size": 1, "zygote": zygote}) as verifier:
        verdict = verifier.verify(GOOD, REF)
    assert verdict.correct and verdict.details["invariants"] == ZYGOTE_CHECKS, verdict


# -- each invariant failing when the sandbox is broken on purpose -------------------------------------------


def _break_zygote(monkeypatch: pytest.MonkeyPatch, file: str, old: str, new: str) -> None:
    """Make every zygote of this test from a copy of the zygote's files in which ``old`` became ``new``."""
    from rewardkit.sandbox.local import zygote_pool

    made = zygote_pool.make_zygote_dir

    def broken(harness):  # type: ignore[no-untyped-def]
        folder = made(harness)
        path = Path(folder) / file
        source = path.read_text()
        assert old in source, f"{old!r} is no longer in {file}: update this test"
        os.chmod(path, 0o644)
        path.write_text(source.replace(old, new))
        return folder

    monkeypatch.setattr(zygote_pool, "make_zygote_dir", broken)


def _judge_local(isolation: str, zygote: bool, programs: list[str], reference=REF) -> list[rk.Verdict]:  # type: ignore[no-untyped-def]
    options = {"isolation": isolation, "zygote": zygote}
    with rk.get_verifier("code", sandbox="local", sandbox_options=options, workers=1) as verifier:
        return [verifier.verify(program, reference) for program in programs]


def _refused_at_start(verdict: rk.Verdict, why: str) -> None:
    assert (verdict.score, verdict.status) == (0.0, "sandbox_error"), verdict
    assert "refusing to judge" in verdict.details["error"] and why in verdict.details["error"], verdict


# Puts CAP_KILL in the run's inheritable set (as a caller with inheritable capabilities would hand them down), and
# keeps the run from clearing it again.
INHERIT_KILL = (
    "    import ctypes as _c, struct as _s\n"
    "    _d = _c.create_string_buffer(24)\n"
    "    run_world.LIBC.capget(_c.c_char_p(run_world._CAP_HEADER), _d)\n"
    "    _w = list(_s.unpack('6I', _d.raw))\n"
    "    _w[2] |= 1 << 5\n"
    "    run_world.check(run_world.LIBC.capset(_c.c_char_p(run_world._CAP_HEADER), _s.pack('6I', *_w)), 'capset')\n"
    "    run_world.clear_capabilities = lambda: None\n"
)
ZYGOTE_HOLES = [
    (
        "the scratch dir on sys.path",
        "local_zygote_main.py",
        "    code_supervisor.main()\n",
        "    sys.path.insert(0, SCRATCH)\n    code_supervisor.main()\n",
        "sys.path entry",
    ),
    (
        "the bounding set kept",
        "local_zygote_main.py",
        "    run_world.drop_bounding_set()  # once",
        "    pass  #",
        "CapBnd",
    ),
    (
        "an inheritable set kept",
        "local_zygote_main.py",
        "    run_world.drop_bounding_set()  # once",
        INHERIT_KILL + "    run_world.drop_bounding_set()  # once",
        "CapInh",
    ),
    ("shm_rmid_forced left off", "local_zygote_main.py", "        run_world.limit_ipc()\n", "", "shm_rmid_forced"),
    ("the OOM score not raised", "local_zygote_main.py", "        run_world.raise_oom_score()\n", "", "OOM score"),
]


@pytest.mark.parametrize("isolation", ["bwrap", "unshare"])
@pytest.mark.parametrize(("hole", "file", "old", "new", "why"), ZYGOTE_HOLES, ids=[h[0] for h in ZYGOTE_HOLES])
def test_a_zygote_with_a_hole_is_refused(monkeypatch, isolation, hole, file, old, new, why) -> None:  # type: ignore[no-untyped-def]
    _root_with("bwrap" if isolation == "bwrap" else "unshare")
    _break_zygote(monkeypatch, file, old, new)
    [verdict] = _judge_local(isolation, True, [GOOD])
    _refused_at_start(verdict, why)


SHARED_NAMESPACE_HOLES = [
    (  # the zygote keeps its network namespace for the next run even after a run used it
        "local_zygote_main.py",
        "    run_world.fresh_network()",
        "    pass",
        USES_LOOPBACK,
        "carried packets",
    ),
    (
        "run_world.py",
        "CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS | (",
        "CLONE_NEWNS | CLONE_NEWUTS | (",
        LEAVES_A_QUEUE,
        "System V msg",
    ),
]


@pytest.mark.parametrize("isolation", ["bwrap", "unshare"])
@pytest.mark.parametrize(
    ("file", "old", "new", "program", "why"),
    SHARED_NAMESPACE_HOLES,
    ids=["a used network namespace kept", "one IPC namespace for every run"],
)
def test_a_zygote_whose_runs_share_a_namespace_is_refused_after_one_used_it(
    monkeypatch, isolation, file, old, new, program, why
) -> None:  # type: ignore[no-untyped-def]
    _root_with("bwrap" if isolation == "bwrap" else "unshare")
    _break_zygote(monkeypatch, file, old, new)
    first, second = _judge_local(isolation, True, [program, GOOD])
    assert first.correct, first  # the namespace was fresh then
    _refused_at_start(second, why)


FORK_EXEC_HOLES = [
    ("bwrap", "the bounding set kept", "--bounding-set=-all", "CapBnd"),
    ("unshare", "the bounding set kept", "--bounding-set=-all", "CapBnd"),
    ("bwrap", "the host's network", "--unshare-net", "network interfaces"),
]


@pytest.mark.parametrize(
    ("isolation", "hole", "flag", "why"), FORK_EXEC_HOLES, ids=[f"{h[0]}-{h[1]}" for h in FORK_EXEC_HOLES]
)
def test_a_fork_exec_run_with_a_hole_is_refused(monkeypatch, isolation, hole, flag, why) -> None:  # type: ignore[no-untyped-def]
    import dataclasses

    from rewardkit.sandbox.local import launch, sandbox

    _root_with("bwrap" if isolation == "bwrap" else "unshare")
    if flag == "--unshare-net" and os.listdir("/sys/class/net") == ["lo"]:
        pytest.skip("this machine has no network interface but lo: its own namespace would look fresh")
    if flag == "--unshare-net":
        real_launch = sandbox.bwrap_launch

        def without(*args, **kwargs):  # type: ignore[no-untyped-def]
            made = real_launch(*args, **kwargs)
            assert flag in made.argv, f"{flag} is no longer in bwrap_launch: update this test"
            return dataclasses.replace(made, argv=[part for part in made.argv if part != flag])

        monkeypatch.setattr(sandbox, "bwrap_launch", without)
    else:
        real_argv = launch.drop_privileges_argv

        def without_flag(uid):  # type: ignore[no-untyped-def]
            argv = real_argv(uid)
            assert flag in argv, f"{flag} is no longer in drop_privileges_argv: update this test"
            return [part for part in argv if part != flag]

        monkeypatch.setattr(launch, "drop_privileges_argv", without_flag)
    [verdict] = _judge_local(isolation, False, [GOOD])
    _refused_at_start(verdict, why)


def _harness_job_with(old: str, new: str, file: str, program: str, reference):  # type: ignore[no-untyped-def]
    from rewardkit.verifiers.code_tests.job import prepare_job

    job = prepare_job(program, reference, Limits(wall_time=8.0))
    source = job.files[file].decode()
    assert old in source, f"{old!r} is no longer in {file}: update this test"
    files = {**job.files, file: source.replace(old, new).encode()}
    return job, files


SWEEP_OFF = ("    if os.getpid() == 1:\n        end = time.monotonic() + 2.0", "    if False:\n        end = 0.0")
LEAVES_A_DAEMON = (
    "import os, sys, time\n"
    "if os.fork() == 0:\n"
    "    os.setsid()\n"
    "    null = os.open(os.devnull, os.O_RDWR)\n"
    "    for fd in (0, 1, 2):\n        os.dup2(null, fd)\n"
    "    time.sleep(30)\n    os._exit(0)\n"
    "print(int(input()) * 2)\n"
)
IO_REF = {"inputs": ["3\n", "7\n"], "outputs": ["6\n", "14\n"]}


def _sandboxes():  # type: ignore[no-untyped-def]
    yield "local-bwrap", lambda: rk.get_sandbox("local", isolation="bwrap")
    yield "local-unshare", lambda: rk.get_sandbox("local", isolation="unshare")
    if docker_problem() is None or os.environ.get("CI") == "true":
        yield "docker", lambda: rk.get_sandbox("docker", pool_size=1, warm=warm_program())


@pytest.mark.parametrize(("name", "make"), list(_sandboxes()), ids=[n for n, _ in _sandboxes()])
def test_a_harness_that_stays_in_the_scratch_dir_is_refused(name, make) -> None:  # type: ignore[no-untyped-def]
    """The supervisor's own working dir must not be one the run can write."""
    from rewardkit.verifiers.code_tests.job import parse_result

    if name == "docker":
        require(docker_problem() is None, str(docker_problem()))
    else:
        _root_with("bwrap" if name.endswith("bwrap") else "unshare")
    job, files = _harness_job_with('    os.chdir("/")', "    pass", "code_supervisor.py", GOOD, REF)
    with make() as box:
        result = box.run(job.command, files, stdin=job.stdin, limits=job.limits)
    _refused_at_start(parse_result(job, result), "working dir")


@pytest.mark.parametrize(("name", "make"), list(_sandboxes()), ids=[n for n, _ in _sandboxes()])
def test_a_case_runner_the_run_could_plant_is_refused(name, make) -> None:  # type: ignore[no-untyped-def]
    """The warm case runner is started anew after a case that leaves a process: its file is one the supervisor
    executes, so it is checked like the interpreter: here its file is gone (one the run could then make)."""
    from rewardkit.verifiers.code_tests.job import parse_result

    if name == "docker":
        require(docker_problem() is None, str(docker_problem()))
    else:
        _root_with("bwrap" if name.endswith("bwrap") else "unshare")
    old = 'CASE_RUNNER = os.path.join(HERE, "code_case_runner.py")'
    job, files = _harness_job_with(old, 'CASE_RUNNER = "/rk-gone/code_case_runner.py"', "code_io_cases.py", GOOD, REF)
    with make() as box:
        result = box.run(job.command, files, stdin=job.stdin, limits=job.limits)
    _refused_at_start(parse_result(job, result), "code_case_runner.py")


@pytest.mark.parametrize(("name", "make"), list(_sandboxes()), ids=[n for n, _ in _sandboxes()])
def test_a_process_left_between_cases_makes_the_supervisor_refuse(name, make) -> None:  # type: ignore[no-untyped-def]
    """With the sweep between cases switched off, the daemon the first case leaves is found before the second."""
    from rewardkit.verifiers.code_tests.job import parse_result

    if name == "docker":
        require(docker_problem() is None, str(docker_problem()))
    else:
        _root_with("bwrap" if name.endswith("bwrap") else "unshare")
    job, files = _harness_job_with(*SWEEP_OFF, "code_procs.py", LEAVES_A_DAEMON, IO_REF)
    with make() as box:
        result = box.run(job.command, files, stdin=job.stdin, limits=job.limits)
    verdict = parse_result(job, result)
    assert (verdict.score, verdict.status) == (0.0, "runtime_error"), verdict
    assert "refused to judge" in verdict.details["error"] and "still alive" in verdict.details["refused"], verdict


@pytest.mark.docker
@pytest.mark.parametrize("zygote", [True, False], ids=["zygote", "exec"])
@pytest.mark.parametrize(
    ("hole", "old", "new", "why"),
    [
        ("the bounding set kept", "    drop_bounding_set()", "    pass", "CapBnd"),
        (
            "the OOM score not raised",
            "    raise_oom_score()\n    os.mkdir(RUN_SCRATCH)",
            "    os.mkdir(RUN_SCRATCH)",
            "OOM score",
        ),
    ],
    ids=["the bounding set kept", "the OOM score not raised"],
)
def test_a_docker_supervisor_with_a_hole_is_refused(monkeypatch, zygote, hole, old, new, why) -> None:  # type: ignore[no-untyped-def]
    problem = docker_problem()
    require(problem is None, str(problem))
    from rewardkit.sandbox.docker import pool

    assert old in pool.SUPERVISOR_SOURCE, f"{old!r} is no longer in the supervisor: update this test"
    monkeypatch.setattr(pool, "SUPERVISOR_SOURCE", pool.SUPERVISOR_SOURCE.replace(old, new))
    with rk.get_verifier("code", sandbox="docker", sandbox_options={"pool_size": 1, "zygote": zygote}) as verifier:
        verdict = verifier.verify(GOOD, REF)
    _refused_at_start(verdict, why)


def test_the_check_module_is_plain_stdlib() -> None:
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", f"import sys; sys.path.insert(0, {str(HARNESS)!r}); import code_invariants"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
