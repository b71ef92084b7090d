"""Stdin/stdout programs read their input every way Python allows, and stop every way they may, on both
backends; and the dataset layouts get the same verdicts from the docker sandbox as from the local one."""

from __future__ import annotations

import os
import shutil

import pytest
from code_dataset_rows import CASES

import rewardkit as rk
from rk_testing import docker_problem, require

REFERENCE = {"inputs": ["3\n1 2 3\n", "1\n10\n", "2\n-5 5\n"], "outputs": ["6\n", "10\n", "0\n"]}
READERS = {
    "input": "n = int(input())\nprint(sum(map(int, input().split())))",
    "sys_stdin_read": "import sys\nprint(sum(map(int, sys.stdin.read().split()[1:])))",
    "sys_stdin_buffer": "import sys\nprint(sum(int(x) for x in sys.stdin.buffer.read().split()[1:]))",
    "buffer_readline": (
        "import sys\nsys.stdin.buffer.readline()\nprint(sum(map(int, sys.stdin.buffer.readline().split())))"
    ),
    "open_0": "print(sum(map(int, open(0).read().split()[1:])))",
    "open_0_binary": "print(sum(map(int, open(0, 'rb').read().split()[1:])))",
    "readline_loop": (
        "import sys\nlines = []\nwhile True:\n    line = sys.stdin.readline()\n    if not line:\n        break\n"
        "    lines.append(line)\nprint(sum(map(int, lines[1].split())))"
    ),
    "readline_alias": "import sys\ninput = sys.stdin.readline\nn = int(input())\nprint(sum(map(int, input().split())))",
    "for_line_in_stdin": "import sys\nrows = [line for line in sys.stdin]\nprint(sum(map(int, rows[1].split())))",
    "readlines": "import sys\nprint(sum(map(int, sys.stdin.readlines()[1].split())))",
    "os_read": "import os\nprint(sum(map(int, os.read(0, 1 << 16).split()[1:])))",
    "fileinput": "import fileinput\nrows = list(fileinput.input())\nprint(sum(map(int, rows[1].split())))",
    "input_until_eof": (
        "rows = []\ntry:\n    while True:\n        rows.append(input())\nexcept EOFError:\n    pass\n"
        "print(sum(map(int, rows[1].split())))"
    ),
    "exit_after_print": "n = int(input())\nprint(sum(map(int, input().split())))\nexit()",
    "quit_zero": "n = int(input())\nprint(sum(map(int, input().split())))\nquit(0)",
    "sys_exit_none": "import sys\nn = int(input())\nprint(sum(map(int, input().split())))\nsys.exit()",
    "main_guard_threading": (
        "import sys, threading\ndef main():\n    n = int(sys.stdin.readline())\n"
        "    print(sum(map(int, sys.stdin.readline().split())))\n"
        "if __name__ == '__main__':\n    threading.stack_size(1 << 26)\n"
        "    t = threading.Thread(target=main)\n    t.start()\n    t.join()"
    ),
    "no_trailing_newline": "import sys\nn = int(input())\nsys.stdout.write(str(sum(map(int, input().split()))))",
}


def fenced(code: str) -> str:
    return f"```python\n{code}\n```"


def check_readers(verifier) -> None:
    verdicts = verifier.verify_batch([fenced(c) for c in READERS.values()], [REFERENCE] * len(READERS))
    wrong = {
        n: (v.score, v.status, v.details.get("stderr_tail", "")[-300:])
        for n, v in zip(READERS, verdicts, strict=True)
        if v.score != 1.0
    }
    assert wrong == {}


def test_every_way_of_reading_stdin_works_in_the_local_sandbox() -> None:
    require(shutil.which("bwrap") is not None or os.geteuid() == 0, "no isolation tool for the local sandbox")
    with rk.get_verifier("code", sandbox="local", wall_time=8) as verifier:
        check_readers(verifier)


@pytest.fixture(scope="module")
def docker_verifier():
    problem = docker_problem()
    require(problem is None, problem or "")
    with rk.get_verifier(
        "code", sandbox="docker", sandbox_options={"pool_size": 2}, wall_time=8, call_timeout=1.0
    ) as v:
        yield v


@pytest.mark.docker
def test_every_way_of_reading_stdin_works_in_the_docker_sandbox(docker_verifier) -> None:
    check_readers(docker_verifier)


@pytest.mark.docker
def test_dataset_layouts_get_the_same_verdicts_on_docker(docker_verifier) -> None:
    picked = [c for c in CASES if c.program != "hang"]
    contexts = [
        {**{k: v for k, v in c.row.items() if k != c.reference_key}, "reference_column": c.reference_key}
        for c in picked
    ]
    verdicts = docker_verifier.verify_batch(
        [c.completion for c in picked], [c.row[c.reference_key] for c in picked], contexts
    )
    wrong = [
        (c.id, v.score, v.status)
        for c, v in zip(picked, verdicts, strict=True)
        if abs(v.score - c.score) > 1e-9 or v.status != c.status
    ]
    assert wrong == []
