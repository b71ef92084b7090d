"""The sandbox protocol: run one untrusted command over a set of files, under limits."""

from __future__ import annotations

import abc
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Limits:
    """Resource caps for one run. Times in seconds, sizes in bytes.

    ``max_output_bytes`` caps stdout and stderr each (a run that exceeds it is killed and comes back
    with ``output_truncated``); ``max_scratch_bytes`` caps the whole private scratch dir (a tmpfs
    size in the local backend, a tmpfs ``size=`` in a container); ``max_file_bytes`` caps one file.
    """

    wall_time: float = 10.0
    cpu_time: float = 10.0
    memory_bytes: int = 512 << 20
    max_processes: int = 64
    max_output_bytes: int = 1 << 20
    max_file_bytes: int = 16 << 20
    max_open_files: int = 256
    max_scratch_bytes: int = 64 << 20


@dataclass(frozen=True)
class RunResult:
    """What came out of one sandboxed run. ``infra_error`` is set when the sandbox, not the program, failed."""

    exit_code: int | None
    stdout: bytes = b""
    stderr: bytes = b""
    duration: float = 0.0
    timed_out: bool = False
    memory_exceeded: bool = False
    output_truncated: bool = False
    signal: int | None = None
    files: Mapping[str, bytes] = field(default_factory=dict)
    infra_error: str | None = None


@dataclass(frozen=True)
class WarmProgram:
    """The command and files a backend may keep warm.

    A run whose command equals ``command`` and whose files hold exactly these bytes under these names may
    be served by a pre-started process that has already loaded them (the local and docker backends' warm
    zygotes); anything else runs cold. The job that owns the program builds it (the code verifier's is
    ``rewardkit.verifiers.code_tests.job.warm_program()``) and passes it as a backend's ``warm`` argument:
    the sandbox layer itself names no program.
    """

    command: tuple[str, ...]
    files: Mapping[str, bytes]
    # The name a zygote knows this program by (the code harness's supervisor is the default); ``more``: other
    # programs of the same job that a backend may keep warm in the same zygote (a backend that knows only the
    # first ignores them). Every program's files are the zygote's: a name two of them share has the same bytes.
    entry: str = "code_supervisor"
    more: tuple[WarmProgram, ...] = ()

    def serves(self, command: Sequence[str], files: Mapping[str, bytes | str]) -> bool:
        """Whether a run of ``command`` over ``files`` is this program (other files may travel with it)."""
        return tuple(command) == self.command and all(files.get(name) == data for name, data in self.files.items())

    def program_for(self, command: Sequence[str], files: Mapping[str, bytes | str]) -> WarmProgram | None:
        """This program or one of ``more`` that a run of ``command`` over ``files`` is; None: none of them."""
        return next((p for p in (self, *self.more) if p.serves(command, files)), None)

    def all_files(self) -> dict[str, bytes]:
        """The files of every program, by name."""
        found: dict[str, bytes] = {}
        for program in (self, *self.more):
            for name, data in program.files.items():
                if found.setdefault(name, data) != data:
                    raise ValueError(f"warm programs {self.entry!r} and {program.entry!r} differ on {name}")
        return found


class Sandbox(abc.ABC):
    """Runs untrusted programs in isolation. Implementations register through ``register_sandboxes``.

    What every backend guarantees to whoever calls :meth:`run` (the code verifier relies on each):

    * **A fresh world per run.** ``files`` are written into a new, private scratch dir, the working dir of
      ``command``; nothing of an earlier run (files, processes, SysV objects, sockets, kernel counters) is
      visible, and nothing of this run outlives it. Paths in ``files`` and ``collect`` are relative, without
      ``..`` (else ``SandboxError``).
    * **Limits hold.** Every :class:`Limits` field applies to the whole run (all its processes): past
      ``wall_time`` everything is killed and ``timed_out`` is set; past memory, ``memory_exceeded``; past
      ``max_output_bytes`` on stdout or stderr, the run is killed and ``output_truncated`` set.
    * **No way out.** No network but loopback inside the run, no capability, a uid no other run shares, the
      host's files read-only or absent, the caller's environment never passed in (no tokens, no keys).
    * **Failures are the sandbox's or the program's, never mixed up.** When the sandbox itself fails (the
      engine is gone, a setup step failed, a check of its own invariants failed) the result carries
      ``infra_error`` and the caller scores no one; the program's own failure is its ``exit_code`` /
      ``signal`` / flags. A backend never raises for what the program did.
    * **Thread-safe.** ``run`` may be called from several threads at once; ``close`` releases everything and
      may be called twice.

    A backend that can serve a run from a pre-started process takes ``warm: WarmProgram | None = None``
    (the one program it may keep warm; None: every run cold); ``rk.get_sandbox(name, warm=...)`` passes it
    only to a backend whose constructor takes it. A warm run gives the same result as a cold one.

    ``rewardkit.testing.FakeSandbox`` is a backend for tests that runs nothing.
    """

    name: str = "sandbox"
    #: The limits of a run that passes none (every backend takes them as its ``limits`` argument).
    limits: Limits = Limits()

    @abc.abstractmethod
    def run(
        self,
        command: Sequence[str],
        files: Mapping[str, bytes | str],
        *,
        stdin: bytes | None = None,
        limits: Limits | None = None,
        collect: Sequence[str] = (),
    ) -> RunResult:
        """Write ``files`` into a fresh scratch dir, run ``command`` there, return output and ``collect``ed files.

        ``limits`` (else :attr:`limits`) hold for the whole run. What callers such as the code verifier's
        harness (``verifiers/code_tests/job.py``) rely on, beyond the class's guarantees: the command gets at
        least ``limits.wall_time`` before it is killed (the harness reports a little before that); it runs as
        a non-root uid with no capabilities and inherits only stdin, stdout and stderr, so what it starts
        cannot hold a descriptor the backend reads; stdout and stderr come back whole up to
        ``limits.max_output_bytes``; the program's exit status and signal are reported, never interpreted;
        and a failure of the backend itself is ``RunResult.infra_error``, never an exception for what the
        program did.
        """

    def toolchain_hint(self) -> str:
        """What to do when a language's compiler or runtime is not in this sandbox ("" when nothing to add)."""
        return ""

    def close(self) -> None:  # noqa: B027 - optional: a backend holding nothing needs no close
        """Release processes and containers. Safe to call twice."""

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
