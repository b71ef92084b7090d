"""Meta-tests of the public surface: ``rewardkit.__all__`` and the hookspecs."""

from __future__ import annotations

import inspect
from pathlib import Path

import rewardkit
from rewardkit.plugins import hookspecs
from rewardkit.plugins.naming import PROJECT_NAME

TESTS = Path(__file__).parent


def hookspec_names() -> list[str]:
    return sorted(name for name, fn in vars(hookspecs).items() if callable(fn) and hasattr(fn, f"{PROJECT_NAME}_spec"))


def test_all_is_sorted_unique_and_importable():
    names = rewardkit.__all__
    assert names == sorted(names)
    assert len(names) == len(set(names))
    for name in names:
        assert getattr(rewardkit, name, None) is not None, f"rewardkit.{name} is in __all__ but missing"
    namespace: dict = {}
    exec("from rewardkit import *", namespace)  # the star import users write
    assert set(names) <= set(namespace)


def test_the_documented_entry_points_are_public():
    for name in ("get_verifier", "get_reward", "build_reward", "hookimpl", "Verdict", "Verifier"):
        assert name in rewardkit.__all__


def test_the_reward_authoring_api_is_public():
    authoring = (
        "Reward",
        "Scored",
        "Batch",
        "Combinator",
        "reward_factory",
        "completion_text",
        "Status",
        "RewardError",
        "score_rows",
    )
    for name in authoring:
        assert name in rewardkit.__all__, name


def test_all_lists_every_public_name_the_package_root_defines():
    import types

    public = {
        name
        for name, obj in vars(rewardkit).items()
        if not name.startswith("_") and not isinstance(obj, types.ModuleType)
    }
    assert public | set(rewardkit._LAZY) == set(rewardkit.__all__)


def test_import_rewardkit_needs_no_extra_and_the_lazy_names_load_on_use():
    import subprocess
    import sys

    code = (
        "import sys, rewardkit as rk; heavy = {'fastapi', 'starlette', 'uvicorn', 'httpx', 'torch', 'ray'}; "
        "assert not heavy & set(sys.modules), heavy & set(sys.modules); "
        "assert rk.RemoteReward.__module__ == 'rewardkit.serve.client'; "
        "assert 'fastapi' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_there_are_hookspecs_and_the_register_hooks_have_the_documented_names():
    names = hookspec_names()
    assert {"register_verifiers", "register_rewards", "register_combinators", "register_sandboxes"} <= set(names)
    assert "register_shapers" not in names  # renamed register_combinators


def test_every_hookspec_has_a_docstring_and_a_register_argument():
    for name in hookspec_names():
        fn = getattr(hookspecs, name)
        doc = inspect.getdoc(fn)
        assert doc and len(doc) > 20, f"hookspec {name} needs a docstring"
        if name.startswith("register_"):
            assert list(inspect.signature(fn).parameters) == ["register"], name


def test_every_hookspec_is_exercised_by_a_test():
    test_sources = "\n".join(
        path.read_text(encoding="utf-8") for path in TESTS.rglob("test_*.py") if path.resolve() != Path(__file__)
    )
    untested = [name for name in hookspec_names() if f"def {name}(" not in test_sources]
    assert not untested, f"hookspecs no test implements: {', '.join(untested)}"
