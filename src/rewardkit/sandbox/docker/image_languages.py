"""Which Debian packages hold each native language's toolchain, for the ``languages`` sandbox image variant.

``rewardkit sandbox-image --languages all`` (or ``c,cpp,go``, ...) builds ``rewardkit-sandbox:languages``: the
base image plus these packages, so the docker backend compiles and runs native programs in the same containers,
under the same namespaces, cgroup, seccomp filter and uid as Python. The image is labelled with the languages it
holds, so a build that asks for other languages replaces it instead of reusing it.
"""

from __future__ import annotations

from collections.abc import Iterable

from rewardkit._errors import SandboxError

LANGUAGES_IMAGE = "rewardkit-sandbox:languages"
LANGUAGES_LABEL = "org.rewardkit.sandbox.languages"
# gcc only recommends libc6-dev (the headers and crt files every C program links against), so it is named.
LANGUAGE_PACKAGES: dict[str, tuple[str, ...]] = {
    "c": ("gcc", "libc6-dev"),
    "cpp": ("g++",),
    "java": ("default-jdk-headless",),
    "go": ("golang-go",),
    "rust": ("rustc",),
    "javascript": ("nodejs",),
}


def parse_languages(spec: str | Iterable[str]) -> tuple[str, ...]:
    """``"all"``, ``"c,cpp"`` or a list of names, as known names in table order; SandboxError for an unknown one."""
    names = [part.strip().lower() for part in (spec.split(",") if isinstance(spec, str) else spec)]
    names = [name for name in names if name]
    if "all" in names:
        return tuple(LANGUAGE_PACKAGES)
    unknown = sorted(set(names) - set(LANGUAGE_PACKAGES))
    if unknown:
        raise SandboxError(
            f"unknown language(s) {', '.join(unknown)} for the sandbox image; expected 'all' or a comma list of "
            f"{', '.join(LANGUAGE_PACKAGES)}"
        )
    return tuple(name for name in LANGUAGE_PACKAGES if name in names)


def language_packages(languages: Iterable[str]) -> tuple[str, ...]:
    """The Debian packages of ``languages`` (already parsed), without repeats."""
    packages: list[str] = []
    for name in languages:
        packages.extend(pkg for pkg in LANGUAGE_PACKAGES[name] if pkg not in packages)
    return tuple(packages)
