"""Dependencies point one way: a layer imports only the layers below it (and its own package).

Every import counts: module level, inside functions, and under ``if TYPE_CHECKING:``. Read from the
source (AST), so an import the tests never execute is checked too. docs/architecture.md explains the layers.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

import rewardkit

SRC = Path(rewardkit.__file__).parent

# Lowest first. A module may import its own package and anything in a lower layer, nothing else.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("rewardkit._errors", "rewardkit._install"),
    ("rewardkit._jsonl", "rewardkit._config_file", "rewardkit.profiling"),
    ("rewardkit.plugins",),
    ("rewardkit.sandbox",),
    ("rewardkit.verifiers",),
    ("rewardkit.rewards",),
    ("rewardkit.scoring",),
    ("rewardkit.train", "rewardkit.audit", "rewardkit.bench", "rewardkit.integrations", "rewardkit.serve"),
    ("rewardkit.cli", "rewardkit.testing"),
    ("rewardkit",),  # the package root (ROOT_MODULES): only users of ``import rewardkit`` reach it
)
ROOT_MODULES = {"rewardkit", "rewardkit._api"}


def _module_name(path: Path) -> str:
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _unit(module: str) -> tuple[int, str]:
    """(layer index, package) of a rewardkit module: the longest matching prefix decides."""
    best: tuple[int, str] | None = None
    for index, units in enumerate(LAYERS):
        for unit in units:
            if (module == unit or module.startswith(unit + ".")) and (best is None or len(unit) > len(best[1])):
                best = (index, unit)
    assert best is not None and (best[1] != "rewardkit" or module in ROOT_MODULES), (
        f"{module} is in no layer: add its package to LAYERS"
    )
    return best


def _is_module(name: str) -> bool:
    path = SRC.parent.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def _imported(tree: ast.AST, module: str) -> list[tuple[int, str]]:
    found = []
    package = (
        module if (SRC.parent.joinpath(*module.split(".")) / "__init__.py").is_file() else module.rpartition(".")[0]
    )
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, *([base] if base else [])])
            for alias in node.names:
                full = f"{base}.{alias.name}"
                found.append((node.lineno, full if _is_module(full) else base))
    return [(line, name) for line, name in found if name == "rewardkit" or name.startswith("rewardkit.")]


def _violations() -> list[str]:
    problems = []
    for path in sorted(SRC.rglob("*.py")):
        module = _module_name(path)
        layer, unit = _unit(module)
        for line, target in _imported(ast.parse(path.read_text()), module):
            target_layer, target_unit = _unit(target)
            if target_unit != unit and target_layer >= layer:
                problems.append(
                    f"{path.relative_to(SRC.parent)}:{line}: {module} (layer {layer}) imports "
                    f"{target} (layer {target_layer})"
                )
    return problems


def test_no_module_imports_a_layer_above_its_own() -> None:
    assert _violations() == []


def test_the_plugin_layer_imports_only_the_error_module() -> None:
    for path in sorted((SRC / "plugins").rglob("*.py")):
        module = _module_name(path)
        outside = [
            t
            for _, t in _imported(ast.parse(path.read_text()), module)
            if not t.startswith("rewardkit.plugins") and t != "rewardkit._errors"
        ]
        assert outside == [], f"{module} imports {outside}"


def test_the_check_catches_an_upward_import(tmp_path: Path) -> None:
    tree = ast.parse("def f():\n    from rewardkit.scoring.loading import resolve_reward\n    import rewardkit as rk\n")
    targets = [t for _, t in _imported(tree, "rewardkit.rewards.spec")]
    assert targets == ["rewardkit.scoring.loading", "rewardkit"]
    assert all(_unit(t)[0] > _unit("rewardkit.rewards.spec")[0] for t in targets)


def test_every_module_has_a_layer() -> None:
    for path in SRC.rglob("*.py"):
        _unit(_module_name(path))
    with pytest.raises(AssertionError, match="in no layer"):
        _unit("rewardkit.newpackage.module")


def test_no_module_or_package_is_named_like_a_standard_library_module() -> None:
    clashes = [
        str(path.relative_to(SRC.parent))
        for path in SRC.rglob("*")
        if "__pycache__" not in path.parts
        and (
            (path.suffix == ".py" and path.stem in sys.stdlib_module_names)
            or (path.is_dir() and path.name in sys.stdlib_module_names)
        )
    ]
    assert clashes == []


def _import_graph() -> dict[str, set[str]]:
    """Module -> the rewardkit modules it imports (anywhere in its text: a lazy import counts too)."""
    graph = {}
    for path in sorted(SRC.rglob("*.py")):
        module = _module_name(path)
        graph[module] = {t for _, t in _imported(ast.parse(path.read_text()), module) if t != module}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in graph.get(node, ()):
            if nxt not in graph:
                continue
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycle_between_modules() -> None:
    """Two modules that import each other (even lazily, inside a function) are one module in two files, or a
    helper that belongs lower down."""
    assert _cycles(_import_graph()) == []


def test_the_cycle_check_finds_a_lazy_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def _private_imports(tree: ast.AST, module: str) -> list[str]:
    return [
        f"{module}:{node.lineno}: from {node.module} import {alias.name}"
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("rewardkit")
        for alias in node.names
        if alias.name.startswith("_") and not alias.name.startswith("__")
    ]


def test_no_module_imports_another_modules_private_name() -> None:
    """A name with a leading underscore is its module's own: another module that needs it gets a public one."""
    found = [p for path in sorted(SRC.rglob("*.py")) for p in _private_imports(ast.parse(path.read_text()), "")]
    assert found == []
    caught = _private_imports(ast.parse("from rewardkit.scoring.loading import _helper\n"), "m")
    assert caught == ["m:1: from rewardkit.scoring.loading import _helper"]
