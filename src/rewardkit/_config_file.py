"""Read a YAML or JSON config file that must hold a mapping: reward specs, training configs, verl routes.

The one loader of such files, so every one fails the same way: a ConfigError that names the kind of file,
its path, and what was expected. It imports only the error module, so any layer may use it.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rewardkit._errors import ConfigError


def load_mapping(path: str | Path, what: str, expected: str = "a mapping") -> Mapping[str, Any]:
    """The mapping the YAML (or JSON, a subset) file ``path`` holds; ``what`` names the file in errors."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"{what} {str(path)!r} does not exist")
    import yaml

    try:
        data = yaml.safe_load(path.read_text())
    except yaml.YAMLError as exc:
        raise ConfigError(f"{what} {str(path)!r} is not valid YAML/JSON: {exc}") from None
    if not isinstance(data, Mapping):
        raise ConfigError(f"{what} {str(path)!r} must hold {expected}, got {type(data).__name__}")
    return data
