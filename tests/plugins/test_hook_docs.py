"""Every hook in the hookspecs is documented in docs/plugins.md with its arguments (a deprecated one as such)."""

from __future__ import annotations

import inspect
from pathlib import Path

from rewardkit.plugins import hookspecs
from rewardkit.plugins.naming import PROJECT_NAME

DOCS = Path(__file__).resolve().parents[2] / "docs" / "plugins.md"


def hook_specs() -> dict[str, tuple[list[str], bool]]:
    """Hook name -> (argument names, deprecated?), read from the hookspecs module as pluggy reads it."""
    found = {}
    for name, func in inspect.getmembers(hookspecs, inspect.isfunction):
        options = getattr(func, f"{PROJECT_NAME}_spec", None)
        if options is None:
            continue
        found[name] = (list(inspect.signature(func).parameters), options.get("warn_on_impl") is not None)
    return found


def test_the_hookspecs_module_declares_the_registry_hooks():
    specs = hook_specs()
    assert {"register_verifiers", "register_rewards", "register_sandboxes"} <= set(specs)
    assert all(arguments for arguments, _ in specs.values())


def test_every_hook_is_documented_with_its_arguments():
    lines = DOCS.read_text().splitlines()
    for name, (arguments, deprecated) in hook_specs().items():
        call = f"`{name}({', '.join(arguments)})`"
        mentions = [line for line in lines if call in line]
        assert mentions, f"docs/plugins.md does not document {call}"
        if deprecated:
            assert any("deprecated" in line.lower() for line in mentions), f"{call} is not marked deprecated"
