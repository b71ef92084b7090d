"""rewardkit's plugin layer: hookspecs, the plugin manager factory and the registries."""

import pluggy

from rewardkit.plugins.naming import PROJECT_NAME

hookimpl = pluggy.HookimplMarker(PROJECT_NAME)

__all__ = ["hookimpl"]
