"""rewardkit: verifiers, reward shaping and plugins for GRPO-style RL fine-tuning.

>>> import rewardkit as rk
>>> rk.get_verifier("math").verify(r"so \\boxed{0.5}", r"\\frac12").correct
True
"""

from rewardkit._api import build_reward, get_language, get_sandbox, get_verifier, plugin_host
from rewardkit._errors import (
    ConfigError,
    InfrastructureError,
    PluginError,
    PluginWarning,
    RewardError,
    RewardkitError,
    SandboxError,
    ServiceError,
    VerifierError,
)
from rewardkit.plugins import hookimpl
from rewardkit.rewards.api import get_reward
from rewardkit.rewards.base import Reward, Scored
from rewardkit.rewards.combinators import Combinator
from rewardkit.rewards.inputs import Batch, completion_text
from rewardkit.rewards.spec import reward_factory
from rewardkit.sandbox.base import Limits, RunResult, Sandbox, WarmProgram
from rewardkit.sandbox.languages import CompileLimits, Language
from rewardkit.scoring.row_scoring import score_rows
from rewardkit.verifiers.base import Verifier, is_missing_reference
from rewardkit.verifiers.verdict import Status, Verdict, is_infrastructure_failure

__version__ = "0.1.0"

# Public names whose modules need an extra: imported on first use, so `import rewardkit` needs only the core.
_LAZY = {"RemoteReward": "rewardkit.serve.client"}


def __getattr__(name: str) -> object:
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'rewardkit' has no attribute {name!r}")


__all__ = [
    "Batch",
    "Combinator",
    "CompileLimits",
    "ConfigError",
    "InfrastructureError",
    "Language",
    "Limits",
    "PluginError",
    "PluginWarning",
    "RemoteReward",
    "Reward",
    "RewardError",
    "RewardkitError",
    "RunResult",
    "Sandbox",
    "SandboxError",
    "Scored",
    "ServiceError",
    "Status",
    "Verdict",
    "Verifier",
    "VerifierError",
    "WarmProgram",
    "build_reward",
    "completion_text",
    "get_language",
    "get_reward",
    "get_sandbox",
    "get_verifier",
    "hookimpl",
    "is_infrastructure_failure",
    "is_missing_reference",
    "plugin_host",
    "reward_factory",
    "score_rows",
]
