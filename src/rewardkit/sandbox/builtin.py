"""Built-in sandbox backends, registered like any plugin's (loaded by name as ``rewardkit.sandbox.builtin``)."""

from __future__ import annotations

from rewardkit.plugins import hookimpl
from rewardkit.plugins.hookspecs import Register


@hookimpl
def register_sandboxes(register: Register) -> None:
    from rewardkit.sandbox.local.sandbox import LocalSandbox

    register("local", LocalSandbox)

    from rewardkit.sandbox.docker.sandbox import DockerSandbox

    register("docker", DockerSandbox)
