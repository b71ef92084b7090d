"""Programming languages a sandbox can build and run: what to compile, with which limits, and how to run it.

A :class:`Language` is plain data, the same for every sandbox backend: the compile step is one sandbox run of
``compile`` over the source (the code verifier's ``native_build.py`` driver packs the ``artifact`` it leaves),
and each test is a run of ``run`` with the artifact. Languages are registered through the
``register_languages`` hook (the built-ins: :mod:`rewardkit.sandbox.builtin_languages`) and looked up by name,
alias or fence tag with :func:`rewardkit.sandbox.lookup.get_language`.

Placeholders in ``compile`` and ``run``: ``{source}`` (the source file's name), ``{artifact}`` (the artifact's
name), ``{memory_mb}`` (the run's memory limit in MiB, for runtimes that size their own heap).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from rewardkit._errors import ConfigError

MIB = 1 << 20
# What the build driver does with the compiler's output: "file" ships one file, "zip" a dir as one zip
# archive (a Java class path), "source" the source itself (the compile step only checks it).
PACKINGS = ("file", "zip", "source")


@dataclass(frozen=True)
class CompileLimits:
    """The compile step's own limits: a compiler needs far more address space and processes than a program."""

    wall_time: float = 30.0
    memory_bytes: int = 1024 * MIB
    max_processes: int = 64
    max_output_bytes: int = 64 * MIB  # the artifact comes back on stdout
    max_scratch_bytes: int = 512 * MIB


@dataclass(frozen=True)
class Language:
    """One language: ``name`` (``"cpp17"``), its ``family`` (``"cpp"``: what a fence tag or a row's language
    column must agree with), the fence tags and aliases that select it, the source file's name, the compile
    argv (None: nothing to compile) and what it leaves, the run argv, and default limits.

    ``executable``: the artifact is a native executable (the judge runs it from a sealed in-memory copy, so
    nothing of a run can change it). ``run_memory_overhead``: address space a run needs beyond the problem's
    memory limit (a JVM, V8 or the Go runtime reserves far more than it uses); the limit itself is enforced by
    the run's peak resident memory and the runtime's own heap cap. ``memory_markers``: stderr text by which
    the runtime says an allocation failed.
    """

    name: str
    family: str
    source_file: str
    run: tuple[str, ...]
    compile: tuple[str, ...] | None = None
    artifact: str | None = None
    packing: str = "file"
    executable: bool = False
    tags: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    compile_limits: CompileLimits = field(default_factory=CompileLimits)
    time_limit: float = 2.0
    memory_limit: int = 256 * MIB
    run_memory_overhead: int = 64 * MIB
    run_processes: int = 4
    memory_markers: tuple[str, ...] = ()
    version_argv: tuple[str, ...] = ()  # prints the toolchain's version: what tests and `rewardkit plugins` probe
    # Where the program names its entry point (Java's public class): ``{entry}`` in source_file and run stands
    # for the first group of this pattern's first match in the program, else ``default_entry``.
    entry_pattern: str | None = None
    default_entry: str = "Main"

    def __post_init__(self) -> None:
        where = f"language {self.name!r}"
        if not self.name or not isinstance(self.name, str):
            raise ConfigError(f"a language needs a name, got {self.name!r}")
        if not self.run:
            raise ConfigError(f"{where}: 'run' must be a non-empty argv")
        if self.packing not in PACKINGS:
            raise ConfigError(f"{where}: packing must be one of {', '.join(PACKINGS)}, got {self.packing!r}")
        if self.compile is not None and self.packing != "source" and not self.artifact:
            raise ConfigError(f"{where}: a compiled language names its 'artifact'")
        if "/" in self.source_file or not self.source_file:
            raise ConfigError(f"{where}: source_file must be a plain file name, got {self.source_file!r}")

    def for_program(self, source: str) -> Language:
        """This language with ``{entry}`` resolved for ``source`` (itself when it has no entry pattern)."""
        if self.entry_pattern is None:
            return self
        found = re.search(self.entry_pattern, source)
        entry = next((group for group in found.groups() if group), self.default_entry) if found else self.default_entry

        def fill(part: str) -> str:
            return part.replace("{entry}", entry)

        return replace(
            self,
            source_file=fill(self.source_file),
            run=tuple(map(fill, self.run)),
            compile=tuple(map(fill, self.compile)) if self.compile is not None else None,
            entry_pattern=None,
        )

    @property
    def compiled(self) -> bool:
        return self.compile is not None

    @property
    def artifact_name(self) -> str:
        """The file a run gets: the compiled artifact (a zip is shipped as ``<artifact>.jar``), or the source."""
        if self.compile is None or self.packing == "source":
            return self.source_file
        artifact = str(self.artifact)
        return f"{artifact.rstrip('/')}.jar" if self.packing == "zip" else artifact

    def names(self) -> tuple[str, ...]:
        """Every name that selects this language: its name, aliases and fence tags."""
        return tuple(dict.fromkeys((self.name, *self.aliases, *self.tags)))

    def compile_argv(self, sources: tuple[str, ...] = ()) -> list[str]:
        """The compile argv; ``sources`` (the program's path first, then a dataset's grader sources compiled with
        it) stand where ``{source}`` stands alone."""
        assert self.compile is not None
        argv: list[str] = []
        for part in self.compile:
            if part == "{source}" and sources:
                argv.extend(sources)
            else:
                argv.append(part.format(source=self.source_file, artifact=self.artifact or ""))
        return argv

    def run_argv(self, memory_bytes: int) -> list[str]:
        values = {
            "source": self.source_file,
            "artifact": self.artifact_name,
            "memory_mb": max(16, memory_bytes // MIB),
            "entry": self.default_entry,
        }
        return [part.format(**values) for part in self.run]
