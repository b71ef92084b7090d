"""The code harness both sandbox backends pre-import in their zygotes, read as data by package name.

The sandbox layer imports no verifier: the harness sources are files of the package
``rewardkit.verifiers.code_tests.harness`` (the stdlib-only modules shipped into every run), and a job is a
harness job when it runs ``HARNESS_COMMAND`` over exactly these bytes. tests/sandbox/local/test_local_zygote.py
checks both against ``verifiers/code_tests/job.py``.
"""

from __future__ import annotations

from importlib import resources

HARNESS_PACKAGE = "rewardkit.verifiers.code_tests.harness"
HARNESS_COMMAND = ("python3", "-I", "-S", "-B", "code_supervisor.py")


def harness_files() -> dict[str, bytes]:
    """Name → bytes of every harness module (``code_*.py`` in the harness package)."""
    package = resources.files(HARNESS_PACKAGE)
    return {
        entry.name: entry.read_bytes()
        for entry in package.iterdir()
        if entry.name.startswith("code_") and entry.name.endswith(".py")
    }
