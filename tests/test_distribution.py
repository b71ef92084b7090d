"""The wheel a user builds (``python -m build``, as the README says) ships the whole package and works when
installed on its own: every module and harness file of ``src/rewardkit``, ``py.typed``, the ``rewardkit``
command and the pytest plugin's entry point."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from rk_testing import require

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    try:
        import build  # noqa: F401
    except ImportError:
        require(False, "the build package (dev extra) builds the wheel")
    out = tmp_path_factory.mktemp("dist")
    done = subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(out), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    (built,) = out.glob("rewardkit-*-py3-none-any.whl")
    return built


def test_the_wheel_holds_every_module_and_the_entry_points(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    source = ROOT / "src"
    expected = {
        str(p.relative_to(source))
        for p in (source / "rewardkit").rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix in (".py", ".typed")
    }
    assert expected - names == set()
    assert "rewardkit/verifiers/code_tests/harness/code_case_runner.py" in names
    (entry_points,) = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "rewardkit = rewardkit.cli:main" in text and "rewardkit.testing.pytest_plugin" in text


def test_the_installed_wheel_verifies_on_its_own(wheel: Path, tmp_path: Path) -> None:
    target = tmp_path / "site"
    pip = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(target), str(wheel)]
    done = subprocess.run(pip, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    probe = (
        "import rewardkit as rk, sys\n"
        f"assert rk.__file__.startswith({str(target)!r}), rk.__file__\n"
        "v = rk.get_verifier('mcq').verify('The answer is (B).', 'B')\n"
        "print(v.score, rk.__version__)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(target)}  # ahead of the checkout's editable install
    run = subprocess.run(
        [sys.executable, "-c", probe], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert run.returncode == 0, run.stderr[-3000:]
    score, version = run.stdout.split()
    import rewardkit

    assert float(score) == 1.0 and version == rewardkit.__version__
    cli = subprocess.run(
        [sys.executable, "-m", "rewardkit.cli", "verify", "math", "--reference", "1/2", r"The answer is \boxed{0.5}"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert cli.returncode == 0 and "1.0" in cli.stdout, cli.stdout + cli.stderr
