"""The built-in languages: C, C++17/20, Java, Go, Rust, JavaScript and Python, registered like any plugin's.

Toolchains are the Debian packages ``.ci/run`` installs (gcc, g++, default-jdk-headless, golang-go, rustc,
nodejs) and are found on the sandbox's own PATH (``/usr/local/bin:/usr/bin:/bin``), never the caller's: a
``rustc`` under ``~/.cargo/bin`` is not what the sandbox runs. The limits were measured on Debian 12 (the
address space each compiler needs: gcc 47 MiB, g++ 95, rustc 727, go 751, javac about 500 with the JVM flags
below, node 711) with room to spare.
"""

from __future__ import annotations

from rewardkit.sandbox.languages import MIB, CompileLimits, Language

# A JVM sized for a judge: one serial GC thread, a small code cache and class space, a 64 MiB main-thread
# stack for deep recursion. The JDK's own CDS archive (read-only, outside any run's reach) maps within the
# small class space and cuts a start by a third; where it does not map, the JVM starts without it.
JVM_FLAGS = (
    "-XX:+UseSerialGC",
    "-Xshare:auto",
    "-XX:ReservedCodeCacheSize=64m",
    "-XX:CompressedClassSpaceSize=64m",
    "-XX:MaxMetaspaceSize=192m",
    "-XX:TieredStopAtLevel=1",
    "-XX:CICompilerCount=1",
    "-XX:-UsePerfData",
)
NATIVE_MARKERS = ("std::bad_alloc", "Cannot allocate memory", "out of memory", "memory allocation of")


def _gcc(
    name: str, family: str, compiler: str, std: str, source: str, tags: tuple[str, ...], aliases: tuple[str, ...]
) -> Language:
    return Language(
        name=name,
        family=family,
        source_file=source,
        compile=(compiler, "-O2", f"-std={std}", "-pipe", "-o", "{artifact}", "{source}", "-lm"),
        artifact="prog",
        executable=True,
        run=("{artifact}",),
        tags=tags,
        aliases=aliases,
        compile_limits=CompileLimits(wall_time=30.0, memory_bytes=1024 * MIB, max_processes=16),
        run_memory_overhead=64 * MIB,
        memory_markers=NATIVE_MARKERS,
        version_argv=(compiler, "--version"),
    )


def builtin_languages() -> list[Language]:
    return [
        _gcc("c", "c", "gcc", "c17", "main.c", ("c",), ("gcc", "c17")),
        _gcc("cpp17", "cpp", "g++", "c++17", "main.cpp", ("cpp", "c++", "cxx", "cc"), ("cpp", "c++17", "g++")),
        _gcc("cpp20", "cpp", "g++", "c++20", "main.cpp", (), ("c++20", "cpp2a")),
        Language(
            name="java",
            family="java",
            source_file="{entry}.java",
            compile=(
                "javac",
                *(f"-J{flag}" for flag in JVM_FLAGS),
                "-J-Xmx512m",
                "-encoding",
                "UTF-8",
                "-d",
                "{artifact}",
                "{source}",
            ),
            artifact="classes",
            packing="zip",
            run=("java", *JVM_FLAGS, "-Xss64m", "-Xmx{memory_mb}m", "-cp", "{artifact}", "{entry}"),
            tags=("java",),
            aliases=("java17", "openjdk"),
            compile_limits=CompileLimits(wall_time=60.0, memory_bytes=2048 * MIB, max_processes=64),
            time_limit=4.0,
            run_memory_overhead=1792 * MIB,  # thread stacks of -Xss64m, code cache, class space, the JVM itself
            run_processes=48,
            memory_markers=("java.lang.OutOfMemoryError",),
            version_argv=("javac", "-version"),
            # the public class names the file, as javac requires; else the class that declares main
            entry_pattern=r"public\s+(?:final\s+|abstract\s+)*class\s+([A-Za-z_$][\w$]*)"
            r"|class\s+([A-Za-z_$][\w$]*)[^{]*\{(?:(?!\bclass\b)[\s\S])*?static\s+void\s+main\b",
        ),
        Language(
            name="go",
            family="go",
            source_file="main.go",
            compile=("go", "build", "-o", "{artifact}", "{source}"),
            artifact="prog",
            executable=True,
            run=("{artifact}",),
            tags=("go", "golang"),
            aliases=("golang",),
            # the build cache and module cache in the compile run's scratch dir; never the network
            env={
                "GOCACHE": "{scratch}/.gocache",
                "GOPATH": "{scratch}/.gopath",
                "GOTOOLCHAIN": "local",
                "GOPROXY": "off",
                "GOFLAGS": "-mod=mod",
                "GO111MODULE": "off",
                "CGO_ENABLED": "0",
            },
            compile_limits=CompileLimits(wall_time=60.0, memory_bytes=2048 * MIB, max_processes=64),
            run_memory_overhead=768 * MIB,
            run_processes=32,
            memory_markers=("runtime: out of memory", "fatal error: out of memory"),
            version_argv=("go", "version"),
        ),
        Language(
            name="rust",
            family="rust",
            source_file="main.rs",
            compile=("rustc", "-O", "-C", "debuginfo=0", "--edition", "2021", "-o", "{artifact}", "{source}"),
            artifact="prog",
            executable=True,
            run=("{artifact}",),
            tags=("rust", "rs"),
            aliases=("rustc",),
            compile_limits=CompileLimits(wall_time=60.0, memory_bytes=2048 * MIB, max_processes=32),
            run_memory_overhead=64 * MIB,
            memory_markers=NATIVE_MARKERS,
            version_argv=("rustc", "--version"),
        ),
        Language(
            name="javascript",
            family="javascript",
            source_file="main.js",
            compile=("node", "--check", "{source}"),
            packing="source",
            run=("node", "--max-old-space-size={memory_mb}", "--stack-size=65500", "{artifact}"),
            tags=("javascript", "js", "node", "nodejs"),
            aliases=("js", "node", "nodejs"),
            compile_limits=CompileLimits(wall_time=30.0, memory_bytes=2048 * MIB, max_processes=32),
            time_limit=3.0,
            run_memory_overhead=1024 * MIB,
            run_processes=32,
            memory_markers=("JavaScript heap out of memory", "Allocation failed"),
            version_argv=("node", "--version"),
        ),
        Language(
            name="python",
            family="python",
            source_file="main.py",
            run=("python3", "-I", "{artifact}"),
            tags=("python", "py", "python3", "py3"),
            aliases=("python3", "py", "cpython"),
            time_limit=4.0,
            run_memory_overhead=64 * MIB,
            memory_markers=("MemoryError",),
            version_argv=("python3", "--version"),
        ),
    ]
