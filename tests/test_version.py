"""One version: `rewardkit.__version__` is the source; the build metadata and `rewardkit --version` agree."""

from __future__ import annotations

import re
from importlib.metadata import version
from pathlib import Path

from click.testing import CliRunner

import rewardkit
from rewardkit.cli import main

ROOT = Path(__file__).resolve().parents[1]


def test_the_package_version_is_a_release_number():
    assert re.fullmatch(r"\d+\.\d+\.\d+(?:(?:a|b|rc|\.dev|\.post)\d+)?", rewardkit.__version__)


def test_the_build_reads_the_version_from_the_package():
    from setuptools.config.expand import read_attr

    pyproject = (ROOT / "pyproject.toml").read_text()
    assert re.search(r'^dynamic = \["version"\]$', pyproject, re.MULTILINE)
    assert not re.search(r"^version = ", pyproject.split("[project]", 1)[1].split("\n[", 1)[0], re.MULTILINE)
    assert read_attr("rewardkit.__version__", package_dir={"": "src"}, root_dir=ROOT) == rewardkit.__version__


def test_installed_metadata_and_the_cli_report_the_package_version():
    assert version("rewardkit") == rewardkit.__version__
    result = CliRunner().invoke(main, ["--version"])
    assert result.exit_code == 0, result.output
    assert result.output.split()[-1] == rewardkit.__version__
