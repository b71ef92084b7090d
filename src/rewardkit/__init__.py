"""rewardkit: verifiers, reward shaping and plugins for GRPO-style RL fine-tuning.

>>> import rewardkit as rk
>>> rk.get_verifier("math").verify(r"so \\boxed{0.5}", r"\\frac12").correct
True
"""

from rewardkit._api import get_sandbox, get_verifier, plugin_host
from rewardkit._errors import ConfigError, PluginError, RewardkitError, SandboxError, VerifierError
from rewardkit.plugins import hookimpl
from rewardkit.rewards.api import build_reward, get_reward
from rewardkit.sandbox.base import Limits, RunResult, Sandbox
from rewardkit.verifiers.base import Verifier
from rewardkit.verifiers.verdict import Verdict

__version__ = "0.1.0"

__all__ = [
    "ConfigError",
    "Limits",
    "PluginError",
    "RewardkitError",
    "RunResult",
    "Sandbox",
    "SandboxError",
    "Verdict",
    "Verifier",
    "VerifierError",
    "build_reward",
    "get_reward",
    "get_sandbox",
    "get_verifier",
    "hookimpl",
    "plugin_host",
]
