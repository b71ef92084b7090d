"""Built-in sandbox backends and languages, registered like any plugin's (loaded as ``rewardkit.sandbox.builtin``)."""

from __future__ import annotations

from rewardkit.plugins import hookimpl
from rewardkit.plugins.hookspecs import Register


@hookimpl
def register_sandboxes(register: Register) -> None:
    from rewardkit.sandbox.local.sandbox import LocalSandbox

    register("local", LocalSandbox)

    from rewardkit.sandbox.docker.sandbox import DockerSandbox

    register("docker", DockerSandbox)


@hookimpl
def register_languages(register: Register) -> None:
    from rewardkit.sandbox.builtin_languages import builtin_languages

    for language in builtin_languages():
        register(language.name, language)
