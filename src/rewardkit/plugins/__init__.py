"""rewardkit's plugin layer: hookspecs, the plugin manager, the registries and their parameter checks.

The lowest layer above ``rewardkit._errors``, which is all it imports: every other layer registers its
built-ins through it (``verifiers/builtin.py``, ``sandbox/builtin.py``, ``rewards/builtin.py``,
``train/builtin.py``), and the manager loads those modules by dotted name.
"""

import pluggy

from rewardkit.plugins.naming import PROJECT_NAME

hookimpl = pluggy.HookimplMarker(PROJECT_NAME)

__all__ = ["hookimpl"]
