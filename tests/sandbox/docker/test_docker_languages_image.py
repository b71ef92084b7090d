"""The ``languages`` variant of the Docker sandbox image: which packages it asks for, and, on an engine, that each
toolchain compiles and runs a program inside the sandbox's usual boundary (namespaces, seccomp, no new
privileges, an unprivileged uid of its own)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from rewardkit._errors import SandboxError
from rewardkit.sandbox.base import Limits
from rewardkit.sandbox.docker.image_build import build_image, dockerfile, image_languages, import_changes
from rewardkit.sandbox.docker.image_languages import (
    LANGUAGE_PACKAGES,
    LANGUAGES_IMAGE,
    LANGUAGES_LABEL,
    language_packages,
    parse_languages,
)
from rewardkit.verifiers.code_tests.job import warm_program
from rk_testing import require

ALL = ("c", "cpp", "java", "go", "rust", "javascript")
JVM = (
    "-XX:+UseSerialGC -Xshare:off -XX:ReservedCodeCacheSize=64m -XX:CompressedClassSpaceSize=64m"
    " -XX:TieredStopAtLevel=1 -XX:CICompilerCount=1"
)
JVM_FOR_JAVAC = " ".join(f"-J{flag}" for flag in JVM.split())
# per language: the files, and the shell line that builds the program and runs it on stdin
PROGRAMS = {
    "c": (
        {"main.c": '#include <stdio.h>\nint main(void){long x; scanf("%ld",&x); printf("%ld\\n",2*x);}\n'},
        "gcc -O2 -std=c17 -o prog main.c && ./prog",
    ),
    "cpp": (
        {"main.cpp": "#include <iostream>\n#include <ranges>\nint main(){long x; std::cin>>x; std::cout<<2*x<<'\\n';}"},
        "g++ -O2 -std=c++20 -o prog main.cpp && ./prog",
    ),
    "java": (
        {
            "Main.java": "public class Main { public static void main(String[] a) {\n"
            "  System.out.println(2 * new java.util.Scanner(System.in).nextLong()); } }\n"
        },
        f"javac {JVM_FOR_JAVAC} -d classes Main.java && java {JVM} -Xmx128m -cp classes Main",
    ),
    "go": (
        {"main.go": 'package main\nimport "fmt"\nfunc main() { var x int64; fmt.Scan(&x); fmt.Println(2 * x) }\n'},
        "GOCACHE=$PWD/.gocache GOPATH=$PWD/.gopath GOPROXY=off CGO_ENABLED=0 go build -o prog main.go && ./prog",
    ),
    "rust": (
        {
            "main.rs": "fn main() { let mut s = String::new(); std::io::stdin().read_line(&mut s).unwrap();\n"
            '  let x: i64 = s.trim().parse().unwrap(); println!("{}", 2 * x); }\n'
        },
        "rustc -O --edition 2021 -o prog main.rs && ./prog",
    ),
    "javascript": (
        {"main.js": 'const x = BigInt(require("fs").readFileSync(0, "utf8").trim()); console.log(String(2n * x));\n'},
        "node --check main.js && node --max-old-space-size=128 main.js",
    ),
}
# A compiler needs far more address space than a judged program; the rest are the sandbox's usual limits.
COMPILE_LIMITS = Limits(
    wall_time=120.0,
    cpu_time=120.0,
    memory_bytes=2 << 30,
    max_processes=64,
    max_scratch_bytes=512 << 20,
    max_file_bytes=256 << 20,
)


def test_languages_parse_in_table_order_and_all_means_every_one():
    assert parse_languages("all") == ALL == tuple(LANGUAGE_PACKAGES)
    assert parse_languages("rust, c,C") == ("c", "rust")
    assert parse_languages(["go", "javascript"]) == ("go", "javascript")
    assert parse_languages("") == parse_languages(()) == ()
    with pytest.raises(SandboxError, match="unknown language.*cobol.*expected 'all' or a comma list of c, cpp"):
        parse_languages("c,cobol")


def test_the_image_asks_for_each_toolchains_packages_once_and_is_labelled_with_its_languages():
    packages = language_packages(ALL)
    assert len(packages) == len(set(packages))
    for package in ("gcc", "libc6-dev", "g++", "default-jdk-headless", "golang-go", "rustc", "nodejs"):
        assert package in packages
    assert language_packages(("c",)) == ("gcc", "libc6-dev")
    text = dockerfile(("c", "go"))
    assert "install -y --no-install-recommends python3 gcc libc6-dev golang-go " in text
    assert f'{LANGUAGES_LABEL}="c,go"' in text
    assert f'LABEL {LANGUAGES_LABEL}="c,cpp,java,go,rust,javascript"' in import_changes(ALL)
    assert f'LABEL {LANGUAGES_LABEL}=""' in import_changes()  # the plain image says it holds none


def test_the_command_refuses_an_unknown_language_before_it_needs_an_engine():
    from rewardkit.cli import main

    result = CliRunner().invoke(main, ["sandbox-image", "--languages", "c,fortran"])
    assert result.exit_code == 1
    assert "unknown language(s) fortran" in result.output


@pytest.fixture(scope="module")
def languages_sandbox():
    """The sandbox on the languages image: reused when it is on the engine with every language, else built."""
    from rewardkit.sandbox.docker.image_build import docker_client
    from rewardkit.sandbox.docker.sandbox import DockerSandbox

    try:
        client = docker_client()
    except SandboxError as exc:
        require(False, str(exc))
    if image_languages(client, LANGUAGES_IMAGE) != ALL:
        try:
            build_image(languages="all")
        except SandboxError as exc:
            require(False, f"cannot build {LANGUAGES_IMAGE} (`make sandbox-image-languages`): {exc}")
    assert image_languages(client, LANGUAGES_IMAGE) == ALL
    with DockerSandbox(image=LANGUAGES_IMAGE, pool_size=1, limits=COMPILE_LIMITS, warm=warm_program()) as sandbox:
        yield sandbox


@pytest.mark.docker
@pytest.mark.slow
@pytest.mark.parametrize("language", ALL)
def test_each_toolchain_builds_and_runs_a_program_inside_the_sandbox(language, languages_sandbox):
    files, line = PROGRAMS[language]
    command = ["/bin/sh", "-c", f"grep -E '^(Uid|Seccomp|NoNewPrivs|CapEff):' /proc/self/status >&2 && {line}"]
    result = languages_sandbox.run(command, files, stdin=b"21000000021\n")
    assert result.infra_error is None, result
    assert (result.exit_code, result.stdout) == (0, b"42000000042\n"), result
    status = dict(line.split(":\t", 1) for line in result.stderr.decode().splitlines()[:4])
    assert status["Seccomp"].strip() == "2" and status["NoNewPrivs"].strip() == "1", status
    assert int(status["CapEff"], 16) == 0, status
    assert int(status["Uid"].split()[0]) >= 2_000_000, status  # the container's own unprivileged run uid


@pytest.mark.docker
def test_a_compile_error_is_the_programs_failure_not_the_sandboxs(languages_sandbox):
    result = languages_sandbox.run(["gcc", "-o", "prog", "main.c"], {"main.c": "int main(void) { return x; }\n"})
    assert result.infra_error is None and result.exit_code == 1, result
    assert b"error:" in result.stderr and b"undeclared" in result.stderr


@pytest.mark.docker
def test_a_compiled_language_on_the_plain_image_is_the_sandboxs_fault_and_says_which_image_to_use():
    import rewardkit as rk
    from rk_testing import docker_problem

    problem = docker_problem()
    require(problem is None, str(problem))
    source = '#include <stdio.h>\nint main(void) { int a, b; scanf("%d %d", &a, &b); printf("%d\\n", a + b); }'
    with rk.get_verifier("code", sandbox="docker", sandbox_options={"pool_size": 1}, time_limit=1.0) as verifier:
        assert verifier.sandbox.toolchain_hint()
        verdict = verifier.verify(f"```c\n{source}\n```", {"inputs": ["2 3\n"], "outputs": ["5\n"]})
    assert verdict.status == "sandbox_error" and verdict.is_infrastructure_failure, verdict
    error = verdict.details["error"]
    assert "no gcc in this sandbox" in error and f"sandbox_options={{'image': '{LANGUAGES_IMAGE}'}}" in error


@pytest.mark.docker
def test_the_languages_image_needs_no_hint(languages_sandbox):
    assert languages_sandbox.languages == ALL
    assert languages_sandbox.toolchain_hint() == ""


@pytest.mark.docker
def test_asking_again_for_the_same_languages_in_any_order_reuses_the_image(languages_sandbox):
    from rewardkit.cli import main

    result = CliRunner().invoke(main, ["sandbox-image", "--languages", "javascript,go,c,cpp,rust,java"])
    assert result.exit_code == 0, result.output
    assert f"{LANGUAGES_IMAGE} ready (exists," in result.output
