"""What every sandbox backend does alike around a run, on the host: check the request, build the clean
environment, encode the rlimits, read an out-of-memory failure from stderr.

Host side only. The stdlib-only supervisor shipped into a container cannot import the package and keeps its
own copy of the rlimit encoding (``docker/container/supervisor.py``); it must stay equal to :func:`rlimits`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rewardkit._errors import SandboxError
from rewardkit.sandbox.base import Limits

# Lines a runtime prints when an allocation fails (rlimit address space, cgroup or container memory cap).
MEMORY_MARKERS = (b"MemoryError", b"Cannot allocate memory", b"std::bad_alloc", b"out of memory")
MEMORY_TAIL_BYTES = 8192


def check_run(backend: str, closed: bool, command: Sequence[str], paths: Iterable[str]) -> None:
    """SandboxError for a closed sandbox, an empty command, or a file name in ``paths`` (the run's files and
    ``collect``) that is not a plain relative path; ``backend`` names the sandbox in the message."""
    if closed:
        raise SandboxError(f"{backend} sandbox is closed")
    if not command:
        raise SandboxError(f"{backend} sandbox: empty command")
    for path in paths:
        check_relative(backend, path)


def check_relative(backend: str, path: str) -> str:
    """``path`` itself when it is relative and free of ``..``, ``.`` and empty parts; else a SandboxError."""
    parts = path.split("/")
    if not path or path.startswith("/") or any(p in ("", ".", "..") for p in parts):
        raise SandboxError(f"{backend} sandbox: file names must be relative paths without '..', got {path!r}")
    return path


# What each way of running a code-harness job guarantees, for the harness supervisor to check of itself before it
# judges (``RK_SANDBOX_INVARIANTS``, see the harness's code_invariants.py).
FORK_EXEC_INVARIANTS = "paths,caps,pid1,netns,ipcns"
SHARED_CGROUP_INVARIANTS = FORK_EXEC_INVARIANTS + ",oom"  # a warm zygote's runs, a container's runs
NO_INVARIANTS = "none"  # isolation="rlimits": no namespaces, the caller's own uid


def clean_env(path: str, scratch: str, home: str | None = None, invariants: str | None = None) -> dict[str, str]:
    """The whole environment a run sees: nothing inherited from the caller (no tokens, no keys)."""
    env = {"PATH": path}
    if invariants is not None:
        env["RK_SANDBOX_INVARIANTS"] = invariants
    if home is not None:
        env["HOME"] = home
    env.update(
        {
            "TMPDIR": scratch,
            "LANG": "C.UTF-8",
            "LC_ALL": "C.UTF-8",
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONIOENCODING": "utf-8",
        }
    )
    return env


def rlimits(limits: Limits) -> dict[str, tuple[int, int]]:
    """The per-process rlimits of a run, by prlimit's names, as (soft, hard). CPU seconds round up, and the
    hard CPU limit is a second later (SIGXCPU, then SIGKILL); no core dumps."""
    cpu = max(1, int(limits.cpu_time + 0.999))
    return {
        "cpu": (cpu, cpu + 1),
        "as": (int(limits.memory_bytes),) * 2,
        "nproc": (int(limits.max_processes),) * 2,
        "fsize": (int(limits.max_file_bytes),) * 2,
        "nofile": (int(limits.max_open_files),) * 2,
        "core": (0, 0),
    }


def ran_out_of_memory(stderr: bytes) -> bool:
    """Whether the end of a run's stderr says an allocation failed."""
    return any(marker in stderr[-MEMORY_TAIL_BYTES:] for marker in MEMORY_MARKERS)
