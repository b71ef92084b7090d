"""Helpers for the plugin tests: build and pip-install tiny plugin distributions, run fresh interpreters."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import rewardkit
from rewardkit.plugins.naming import ALLOW_ENV, BLOCK_ENV, LOAD_ENTRY_POINTS_ENV, STRICT_ENV
from rk_testing import IN_CI, require  # noqa: F401 - the plugin tests import them from here

# CI=true makes a broken plugin an error, and the suite itself runs with it in CI: each test sets it.
PLUGIN_ENV_VARS = (ALLOW_ENV, BLOCK_ENV, LOAD_ENTRY_POINTS_ENV, STRICT_ENV, "CI")
# The rewardkit under test, so a fresh interpreter imports the same one (a checkout's src/, not an install).
REWARDKIT_ROOT = Path(rewardkit.__file__).resolve().parents[1]


DEMO_PLUGIN = '''\
"""A third-party rewardkit plugin, as someone would publish it."""
import rewardkit as rk
from rewardkit.verifiers.verdict import Verdict


class ExactVerifier(rk.Verifier):
    name = "exact"

    def __init__(self, *, case_sensitive: bool = False) -> None:
        self.case_sensitive = case_sensitive

    def _verify(self, completion, reference, **context):
        got, want = str(completion).strip(), str(reference).strip()
        if not self.case_sensitive:
            got, want = got.lower(), want.lower()
        return Verdict(float(got == want), got == want, "ok", got)


def shortness(prompts, completions, **kwargs):
    return [1.0 / (1 + len(c)) for c in completions]


@rk.hookimpl
def register_verifiers(register):
    register("exact", ExactVerifier)


@rk.hookimpl
def register_rewards(register):
    register("shortness", shortness)
'''

BROKEN_PLUGIN = """\
import rewardkit as rk


@rk.hookimpl
def register_verifier(register):  # misspelled: the hook is register_verifiers
    register("never", object)
"""


# One distribution per way a third-party plugin breaks: (entry-point name, module code, entry-point value).
BROKEN_KINDS = {
    "raises-on-import": (
        "import-boom",
        'raise RuntimeError("cannot find my model weights")\n',
        None,
    ),
    "missing-attribute": (
        "ghost",
        "import rewardkit as rk\n\n\n@rk.hookimpl\ndef register_rewards(register):\n"
        '    register("ghost_reward", len)\n',
        "no_such_plugin",
    ),
    "hook-raises": (
        "half-done",
        """\
import rewardkit as rk


class HalfVerifier(rk.Verifier):
    def _verify(self, completion, reference, **context):
        raise AssertionError("never used")


@rk.hookimpl
def register_verifiers(register):
    register("halfway", HalfVerifier)


@rk.hookimpl
def register_rewards(register):
    raise RuntimeError("reward table missing")
""",
        None,
    ),
    "name-clash": (
        "clasher",
        """\
import rewardkit as rk


@rk.hookimpl
def register_rewards(register):
    register("clash_only", lambda prompts, completions, **kw: [0.0] * len(completions))


@rk.hookimpl
def register_verifiers(register):
    register("mcq", object)
""",
        None,
    ),
}


def _pyproject(dist: str, version: str, entry_name: str, module: str, attribute: str | None = None) -> str:
    return textwrap.dedent(
        f"""\
        [build-system]
        requires = ["setuptools>=64"]
        build-backend = "setuptools.build_meta"

        [project]
        name = "{dist}"
        version = "{version}"
        dependencies = ["rewardkit"]

        [project.entry-points.rewardkit]
        {entry_name} = "{module}{":" + attribute if attribute else ""}"

        [tool.setuptools]
        py-modules = ["{module}"]
        """
    )


def pip_install_plugin(
    src: Path,
    target: Path,
    dist: str,
    version: str,
    entry_name: str,
    module: str,
    code: str,
    attribute: str | None = None,
) -> None:
    """Write a one-module distribution and ``pip install --target`` it, offline and without its deps; its
    entry point names the module, or ``module:attribute``."""
    src.mkdir(parents=True)
    (src / "pyproject.toml").write_text(_pyproject(dist, version, entry_name, module, attribute))
    (src / f"{module}.py").write_text(code)
    cmd = [
        sys.executable,
        "-m",
        "pip",
        "install",
        "--quiet",
        "--no-deps",
        "--no-build-isolation",
        "--no-index",
        "--disable-pip-version-check",
        "--target",
        str(target),
        str(src),
    ]
    done = subprocess.run(cmd, check=False, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"pip install failed:\n{done.stdout}\n{done.stderr}"


def run_python(code: str, *paths: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh interpreter whose PYTHONPATH holds ``paths`` and no plugin env vars."""
    return subprocess.run(
        [sys.executable, "-c", code],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
        env=plugin_env(*paths, **(env or {})),
    )


def plugin_env(*paths: Path, **extra: str) -> dict[str, str]:
    """The environment minus the plugin variables and CI, with ``paths`` (then rewardkit) on PYTHONPATH."""
    env = {k: v for k, v in os.environ.items() if k not in PLUGIN_ENV_VARS and k != "PYTHONPATH"}
    env["PYTHONPATH"] = os.pathsep.join(str(p) for p in (*paths, REWARDKIT_ROOT))
    env.update(extra)
    return env


def run_cli(args: list[str], *paths: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    """Run the installed ``rewardkit`` console script with ``paths`` on PYTHONPATH and no plugin env vars."""
    script = Path(sys.executable).parent / "rewardkit"
    cmd = [str(script)] if script.exists() else [sys.executable, "-m", "rewardkit.cli"]
    return subprocess.run(
        [*cmd, *args], check=False, capture_output=True, text=True, timeout=120, env=plugin_env(*paths, **extra)
    )


def plugins_json(*paths: Path, **extra: str) -> list[dict]:
    """What ``rewardkit plugins --json`` prints, run as the installed console script."""
    done = run_cli(["plugins", "--json"], *paths, **extra)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)
