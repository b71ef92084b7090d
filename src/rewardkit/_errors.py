"""rewardkit's exception tree.

RewardkitError
├── ConfigError    a bad reward spec, bad parameters, an unknown name
├── PluginError    a plugin that fails to load, a misspelled hook, a duplicate name
├── VerifierError  a verifier used wrongly (never raised for model output)
├── SandboxError   the sandbox itself failed (not the program's fault)
├── RewardError    a reward's own code raised while scoring (the message names the reward)
├── InfrastructureError  too many rows failed for the system's reasons (sandbox, verifier, dataset), not
│                  the model's: the run is broken, so the reward stops it instead of training on None
└── ServiceError   a reward service could not be reached, or refused a call (names the URL, status, tries)

PluginWarning (a UserWarning): a third-party plugin failed to load and was skipped; the rest still works
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


class InfrastructureError(RewardkitError):
    """More of a reward's recent rows than its threshold allows were infrastructure failures (a dead sandbox
    engine, a crashing verifier, a dataset without references): the message names the reward, the rate,
    the statuses and the parameter that sets the threshold."""


class ServiceError(RewardkitError):
    """A reward service (``rewardkit serve``) could not be reached in time or refused a call; the message
    names the URL, the last HTTP status (or connection error) and how many tries were made."""


class PluginWarning(UserWarning):
    """A third-party plugin failed to load and was left out (``REWARDKIT_STRICT_PLUGINS=1`` or ``CI=true``
    make it a :class:`PluginError` instead)."""
