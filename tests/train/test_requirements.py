"""The train extra is present (skip on a user's machine without it; failure under CI=true)."""

from __future__ import annotations

import importlib.util

from rk_testing import require

MISSING = [m for m in ("torch", "transformers", "peft", "matplotlib") if importlib.util.find_spec(m) is None]


def test_train_extra_is_installed():
    require(not MISSING, f"the train extra is not installed ({', '.join(MISSING)}): pip install 'rewardkit[train]'")
    import torch

    assert torch.tensor([1.0]).sum().item() == 1.0


def test_core_package_imports_without_torch():
    import subprocess
    import sys

    code = (
        "import sys, rewardkit as rk; rk.plugin_host().registries; "
        "assert 'kd_logprob' in rk.plugin_host().registries.rewards; "
        "assert 'torch' not in sys.modules, 'torch was imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)
