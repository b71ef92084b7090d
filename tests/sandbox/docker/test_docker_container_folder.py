"""The docker backend's in-container code is a folder: exactly its files join the supervisor's program, and
they import only the standard library (their host-side imports of each other stay behind the guard)."""

from __future__ import annotations

import ast
import sys
from importlib import resources

from rewardkit.sandbox.docker.container import CONTAINER_FILES
from rewardkit.sandbox.docker.pool import SUPERVISOR_SOURCE

CONTAINER = resources.files("rewardkit.sandbox.docker.container")
SHARED = resources.files("rewardkit.sandbox")


def _folder_files() -> set[str]:
    return {e.name for e in CONTAINER.iterdir() if e.name.endswith(".py") and e.name != "__init__.py"}


def test_the_supervisor_program_is_the_folder_after_the_shared_scripts() -> None:
    assert set(CONTAINER_FILES) == _folder_files()
    parts = [SHARED.joinpath("seccomp_bpf.py"), SHARED.joinpath("run_world.py")]
    parts += [CONTAINER.joinpath(name) for name in CONTAINER_FILES]
    assert SUPERVISOR_SOURCE == "\n".join(part.read_text() for part in parts)
    compile(SUPERVISOR_SOURCE, "<supervisor>", "exec")  # one program: no file may need another's __future__


def _is_host_guard(node: ast.stmt) -> bool:
    """``if "<name>" not in globals():``: the host-side imports, skipped where the program is one source."""
    test = node.test if isinstance(node, ast.If) else None
    return (
        isinstance(test, ast.Compare)
        and isinstance(test.ops[0], ast.NotIn)
        and isinstance(test.comparators[0], ast.Call)
        and getattr(test.comparators[0].func, "id", None) == "globals"
    )


def test_container_files_import_only_the_stdlib_outside_the_host_guard() -> None:
    for name in CONTAINER_FILES:
        tree = ast.parse(CONTAINER.joinpath(name).read_text())
        assert not any(isinstance(n, ast.ImportFrom) and n.module == "__future__" for n in ast.walk(tree)), name
        guarded = {id(inner) for node in tree.body if _is_host_guard(node) for inner in ast.walk(node)}
        foreign = []
        for node in ast.walk(tree):
            if id(node) in guarded:
                continue
            if isinstance(node, ast.Import):
                foreign += [a.name for a in node.names if a.name.partition(".")[0] not in sys.stdlib_module_names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                if node.level or node.module.partition(".")[0] not in sys.stdlib_module_names:
                    foreign.append(node.module)
        assert foreign == [], f"{name} imports {foreign} where the container runs it"
        hosted = [n for n in tree.body if _is_host_guard(n)]
        for node in hosted:
            for inner in ast.walk(node):
                if isinstance(inner, ast.ImportFrom):
                    assert inner.module in {
                        *(f"rewardkit.sandbox.docker.container.{f.removesuffix('.py')}" for f in CONTAINER_FILES),
                        "rewardkit.sandbox.run_world",
                        "rewardkit.sandbox.seccomp_bpf",
                    }, f"{name} imports {inner.module} on the host"
