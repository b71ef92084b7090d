"""The code verifier's trust boundary is a folder: exactly its files travel into the sandbox, stdlib only."""

from __future__ import annotations

import ast
import sys
from importlib import resources

from rewardkit.sandbox.base import Limits
from rewardkit.verifiers.code_tests.job import HARNESS_FILES, prepare_job

HARNESS = resources.files("rewardkit.verifiers.code_tests.harness")


def _folder_files() -> set[str]:
    return {e.name for e in HARNESS.iterdir() if e.name.endswith(".py") and e.name != "__init__.py"}


def test_harness_files_are_exactly_the_harness_folder() -> None:
    assert set(HARNESS_FILES) == _folder_files()
    assert len(HARNESS_FILES) == len(set(HARNESS_FILES))


def test_a_job_ships_the_harness_folder_and_the_program_only() -> None:
    job = prepare_job("def f(x):\n    return x\n", {"fn_name": "f", "inputs": [[1]], "outputs": [1]}, Limits())
    assert set(job.files) == _folder_files() | {"program.py"}
    assert all(job.files[name] == HARNESS.joinpath(name).read_bytes() for name in HARNESS_FILES)


def _imports_outside_fallbacks(tree: ast.AST) -> list[str]:
    """Top-level module names imported, except in the ``except ImportError`` host-side fallbacks."""
    fallback_nodes: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Try):
            for handler in node.handlers:
                for inner in ast.walk(handler):
                    fallback_nodes.add(id(inner))
    names = []
    for node in ast.walk(tree):
        if id(node) in fallback_nodes:
            continue
        if isinstance(node, ast.Import):
            names += [alias.name.partition(".")[0] for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.append(node.module.partition(".")[0])
    return names


def test_harness_files_import_only_the_stdlib_and_each_other() -> None:
    siblings = {name.removesuffix(".py") for name in HARNESS_FILES}
    for name in HARNESS_FILES:
        tree = ast.parse(HARNESS.joinpath(name).read_text())
        foreign = [
            m for m in _imports_outside_fallbacks(tree) if m not in sys.stdlib_module_names and m not in siblings
        ]
        assert foreign == [], f"{name} imports {foreign}"
