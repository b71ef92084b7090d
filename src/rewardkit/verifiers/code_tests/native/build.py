"""The compile step: one sandbox run per (language, flags, source), its artifact kept in a cache on the host.

The cache is keyed by the sha256 of the language's name, its compile argv and env, and the source (plus any
extra files compiled with it), so a GRPO group's identical completions and a rerun of the same program compile
once. It lives in this process (and, with ``cache_dir``, in files of that dir), where no program can reach it:
a run only ever gets a read-only copy of the artifact.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources

from rewardkit._errors import SandboxError
from rewardkit.sandbox.base import Limits, RunResult, Sandbox, WarmProgram
from rewardkit.sandbox.languages import Language

BUILD_COMMAND = ("python3", "-I", "-S", "-B", "native_build.py")
COMPILER_LINES = 20  # of the compiler's messages, shown in a compile_error's details


@dataclass(frozen=True)
class Built:
    """A successful build: the artifact's bytes, and whether they came from the cache."""

    artifact: bytes
    cached: bool = False


@dataclass(frozen=True)
class BuildFailure:
    """A failed build. ``infrastructure``: the sandbox's fault (no such compiler there, the run failed)."""

    message: str
    infrastructure: bool = False
    timed_out: bool = False


@functools.cache
def _driver() -> bytes:
    return resources.files("rewardkit.verifiers.code_tests.native.harness").joinpath("native_build.py").read_bytes()


def warm_build() -> WarmProgram:
    """The compile run, as a program a backend may keep warm (``native_build.main()`` in a zygote's fork)."""
    return WarmProgram(BUILD_COMMAND, {"native_build.py": _driver()}, entry="native_build")


def build_key(
    language: Language, source: str, extra: Mapping[str, str] | None = None, program_path: str | None = None
) -> str:
    recipe = {
        "language": language.name,
        "compile": list(language.compile or ()),
        "env": dict(language.env),
        "packing": language.packing,
        "source": source,
        "extra": dict(sorted((extra or {}).items())),
        "program_path": program_path,
    }
    return hashlib.sha256(json.dumps(recipe, sort_keys=True).encode("utf-8", "surrogatepass")).hexdigest()


def first_lines(stderr: bytes, count: int = COMPILER_LINES) -> str:
    lines = stderr.decode("utf-8", "replace").splitlines()
    shown = "\n".join(lines[:count])
    return shown + (f"\n... ({len(lines) - count} more lines)" if len(lines) > count else "")


class BuildCache:
    """Artifacts by build key, least recently used dropped past ``max_bytes``; counts hits, misses and builds.

    ``cache_dir``: also keep each artifact as a file there (a hit survives the process). One build per key at
    a time: threads asking for the same program wait for the one compiling it.
    """

    def __init__(self, max_bytes: int = 512 << 20, cache_dir: str | None = None) -> None:
        self.max_bytes = max_bytes
        self.cache_dir = cache_dir
        self._items: OrderedDict[str, bytes] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()
        self._building: dict[str, threading.Lock] = {}
        self.counts = {"hits": 0, "misses": 0, "compiles": 0, "compile_errors": 0}

    def get(self, key: str) -> bytes | None:
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
                return found
        if self.cache_dir:
            path = os.path.join(self.cache_dir, key)
            if os.path.isfile(path):
                with open(path, "rb") as fh:
                    data = fh.read()
                self._keep(key, data)
                return data
        return None

    def put(self, key: str, data: bytes) -> None:
        self._keep(key, data)
        if self.cache_dir:
            os.makedirs(self.cache_dir, mode=0o700, exist_ok=True)
            tmp = os.path.join(self.cache_dir, f".{key}.{os.getpid()}.{threading.get_ident()}")
            with open(tmp, "wb") as fh:
                fh.write(data)
            os.replace(tmp, os.path.join(self.cache_dir, key))

    def _keep(self, key: str, data: bytes) -> None:
        with self._lock:
            if key in self._items:
                return
            self._items[key] = data
            self._size += len(data)
            while self._size > self.max_bytes and len(self._items) > 1:
                _, dropped = self._items.popitem(last=False)
                self._size -= len(dropped)

    def key_lock(self, key: str) -> threading.Lock:
        with self._lock:
            return self._building.setdefault(key, threading.Lock())

    def count(self, name: str) -> None:
        with self._lock:
            self.counts[name] += 1


def build(
    sandbox: Sandbox,
    language: Language,
    source: str,
    cache: BuildCache,
    *,
    extra: Mapping[str, str] | None = None,
    limits: Limits | None = None,
    program_path: str | None = None,
) -> Built | BuildFailure:
    """The artifact of ``source`` in ``language``: from the cache, else built in one sandbox run. ``extra``: more
    files in the compile run's dir; with ``program_path`` the program is written there (not as the language's
    source file) and compiled with the ``extra`` sources of its language's extension (IOI graders)."""
    if not language.compiled:
        return Built(source.encode("utf-8"), cached=True)
    key = build_key(language, source, extra, program_path)
    found = cache.get(key)
    if found is not None:
        cache.count("hits")
        return Built(found, cached=True)
    with cache.key_lock(key):
        found = cache.get(key)
        if found is not None:
            cache.count("hits")
            return Built(found, cached=True)
        cache.count("misses")
        outcome = _compile(sandbox, language, source, extra, limits, program_path)
        cache.count("compiles")
        if isinstance(outcome, Built):
            cache.put(key, outcome.artifact)
        elif not outcome.infrastructure:
            cache.count("compile_errors")
        return outcome


def compile_limits(language: Language) -> Limits:
    own = language.compile_limits
    return Limits(
        wall_time=own.wall_time,
        cpu_time=own.wall_time,
        memory_bytes=own.memory_bytes,
        max_processes=own.max_processes,
        max_output_bytes=own.max_output_bytes,
        max_file_bytes=own.max_output_bytes,
        max_open_files=512,
        max_scratch_bytes=own.max_scratch_bytes,
    )


def _compile(
    sandbox: Sandbox,
    language: Language,
    source: str,
    extra: Mapping[str, str] | None,
    limits: Limits | None,
    program_path: str | None = None,
) -> Built | BuildFailure:
    sources: tuple[str, ...] = ()
    if program_path:
        suffix = os.path.splitext(language.source_file)[1]
        sources = (program_path, *sorted(n for n in (extra or {}) if n.endswith(suffix) and n != program_path))
    job = {
        "argv": language.compile_argv(sources),
        "env": dict(language.env),
        "artifact": language.artifact,
        "packing": language.packing,
        "source": language.source_file,
    }
    files: dict[str, bytes | str] = {
        **(extra or {}),
        program_path or language.source_file: source,
        "native_build.py": _driver(),
    }
    try:
        result = sandbox.run(
            BUILD_COMMAND, files, stdin=json.dumps(job).encode(), limits=limits or compile_limits(language)
        )
    except SandboxError as exc:
        return BuildFailure(f"the sandbox could not compile: {exc}", infrastructure=True)
    return _built(result, language, sandbox.toolchain_hint())


def _built(result: RunResult, language: Language, hint: str = "") -> Built | BuildFailure:
    if result.infra_error:
        return BuildFailure(f"the sandbox failed to compile: {result.infra_error}", infrastructure=True)
    if result.exit_code == 3 and result.stderr.startswith(b"rk-build:"):
        return BuildFailure(first_lines(result.stderr, 2) + (f"; {hint}" if hint else ""), infrastructure=True)
    if result.timed_out:
        return BuildFailure(f"the compiler ran past {language.compile_limits.wall_time:g}s", timed_out=True)
    if result.memory_exceeded:
        return BuildFailure("the compiler ran out of memory: " + first_lines(result.stderr), timed_out=False)
    if result.output_truncated:
        return BuildFailure(f"the build is over {language.compile_limits.max_output_bytes >> 20} MiB")
    if result.exit_code != 0:
        return BuildFailure(first_lines(result.stderr) or f"the compiler failed (exit status {result.exit_code})")
    return Built(result.stdout)
