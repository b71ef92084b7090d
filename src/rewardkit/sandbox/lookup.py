"""``rk.get_sandbox`` and ``rk.get_language``: a new sandbox backend, a registered language."""

from __future__ import annotations

import inspect
import re
from typing import Any

from rewardkit._errors import ConfigError
from rewardkit.plugins.manager import default_host
from rewardkit.sandbox.base import Sandbox, WarmProgram
from rewardkit.sandbox.languages import Language


def get_sandbox(name: str, *, warm: WarmProgram | None = None, **options: Any) -> Sandbox:
    """A new sandbox backend of a registered kind (``"local"``, ``"docker"``, ...).

    ``warm``: the program the backend may keep warm (:class:`WarmProgram`), passed only to a backend whose
    constructor takes a ``warm`` argument; any other backend runs it cold."""
    registry = default_host().registries.sandboxes
    if warm is not None and _takes_warm(registry, name):
        options = {**options, "warm": warm}
    sandbox: Sandbox = registry.create(name, options)
    return sandbox


def _takes_warm(registry: Any, name: str) -> bool:
    alias = registry.alias(name) if isinstance(name, str) else None
    target = alias.target if alias is not None else name
    if not isinstance(target, str) or target not in registry:
        return False  # create() says what is wrong with the name
    try:
        return "warm" in inspect.signature(registry.get(target)).parameters
    except (TypeError, ValueError):
        return False


def get_language(name: str) -> Language:
    """The registered language called ``name``, or the one with ``name`` as an alias or fence tag (any case:
    ``"cpp"``, ``"C++"``, ``"golang"``); ConfigError listing the registered languages when none is."""
    found = find_language(name)
    if found is None:
        registry = default_host().registries.languages
        raise ConfigError(registry.unknown_message(name) + f" Their aliases and fence tags: {_names()}")
    return found


def find_language(name: Any) -> Language | None:
    """Like :func:`get_language`, None when no language has that name."""
    if not isinstance(name, str) or not name.strip():
        return None
    registry = default_host().registries.languages
    key = name.strip().lower()
    if key in registry:
        language: Language = registry.get(key)
        return language
    for registered in registry.names():
        candidate: Language = registry.get(registered)
        if key in (n.lower() for n in candidate.names()):
            return candidate
    judge_name = judge_language_name(key)
    return find_language(judge_name) if judge_name and judge_name != key else None


# How judges and datasets name the built-in languages ("GNU C++17", "PyPy 3", "Java 11", "Rust 2021", "Node.js"):
# the built-in each stands for, tried when no registered name, alias or tag matches.
_JUDGE_NAMES = (
    (re.compile(r"(gnu |ms |clang\+\+ ?)?(c\+\+|cpp|g\+\+) ?(20|2a|23|2b)\b.*"), "cpp20"),
    (re.compile(r"(gnu |ms |clang\+\+ ?)?(c\+\+|cpp|g\+\+) ?\d*\b.*"), "cpp17"),
    (re.compile(r"(gnu )?c ?(\d+)?( .*)?"), "c"),
    (re.compile(r"(pypy|python|cpython) ?\d*(\.\d+)*( .*)?"), "python"),
    (re.compile(r"(java|openjdk) ?\d*( .*)?"), "java"),
    (re.compile(r"(node(\.?js)?|javascript|js)( .*)?"), "javascript"),
    (re.compile(r"(go|golang) ?\d*(\.\d+)*( .*)?"), "go"),
    (re.compile(r"rust ?\d*( .*)?"), "rust"),
)


def judge_language_name(name: str) -> str | None:
    """The built-in language a judge's or dataset's language name stands for, or None."""
    key = " ".join(name.strip().lower().split())
    for pattern, builtin in _JUDGE_NAMES:
        if pattern.fullmatch(key):
            return builtin
    return None


def _names() -> str:
    registry = default_host().registries.languages
    return "; ".join(f"{n}: {', '.join(registry.get(n).names()[1:]) or '-'}" for n in registry.names())
