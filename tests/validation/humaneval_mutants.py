"""Simple mutants of HumanEval canonical solutions (from rewardkit.bench), and the plain-execution baseline."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

from rewardkit.bench.humaneval import MUTATIONS, mutate  # noqa: F401 - re-exported for the tests


def plain_execution_passes(program: str, test: str, entry_point: str, timeout: float) -> bool:
    """What running the program and HumanEval's check in one bare interpreter says (the baseline)."""
    source = f"{program}\n\n{test}\n\ncheck({entry_point})\n"
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "baseline.py")
        with open(path, "w") as fh:
            fh.write(source)
        try:
            done = subprocess.run(
                [sys.executable, "-I", path],
                cwd=tmp,
                capture_output=True,
                timeout=timeout,
                env={"PATH": "/usr/bin:/bin"},
                check=False,
            )
        except subprocess.TimeoutExpired:
            return False
    return done.returncode == 0
