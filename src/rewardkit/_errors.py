"""rewardkit's exception tree.

RewardkitError
├── ConfigError    a bad reward spec, bad parameters, an unknown name
├── PluginError    a plugin that fails to load, a misspelled hook, a duplicate name
├── VerifierError  a verifier used wrongly (never raised for model output)
├── SandboxError   the sandbox itself failed (not the program's fault)
└── RewardError    a reward's own code raised while scoring (the message names the reward)
"""

from __future__ import annotations


class RewardkitError(Exception):
    """Root of every error rewardkit raises on purpose."""


class ConfigError(RewardkitError, ValueError):
    """A configuration, spec or parameter is invalid."""


class PluginError(RewardkitError):
    """A plugin could not be loaded or registered."""


class VerifierError(RewardkitError):
    """A verifier was misused (never raised for model output: that becomes a verdict status)."""


class SandboxError(RewardkitError):
    """The sandbox infrastructure failed: a missing tool, a dead engine, a broken container."""


class RewardError(RewardkitError):
    """A reward's own code raised while scoring a batch; the message names the reward, the cause is chained."""
