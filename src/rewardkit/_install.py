"""How to install an extra, in the words of every "this needs …" message. rewardkit is not on a package
registry: ``pip install 'rewardkit[x]'`` would ask PyPI for a package of that name, which is not this one."""

from __future__ import annotations


def extra_hint(extras: str) -> str:
    """The install line for ``extras`` (``"train"``, ``"serve,ray-serve"``) from a checkout or a built wheel."""
    return (
        f"pip install -e '.[{extras}]' in a rewardkit checkout, or the wheel with its extras "
        f"(pip install './dist/rewardkit-<version>-py3-none-any.whl[{extras}]'; README.md, Installing)"
    )
