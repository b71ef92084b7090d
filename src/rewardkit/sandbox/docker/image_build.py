"""Build the Docker sandbox image: from a Dockerfile where a registry is reachable, else from a local rootfs.

The rootfs route needs no registry at all: ``debootstrap`` fetches Debian packages from a Debian mirror
(reachable from build machines that cannot reach Docker Hub), the tree is trimmed, a non-root ``sandbox``
user is added, and the tarball is sent to the engine with ``docker import``. The trimmed tarball is cached,
so a second build is a plain import; an image that already exists is left alone unless ``rebuild``.
``languages`` adds native toolchains (``image_languages.py``) and makes the ``rewardkit-sandbox:languages`` variant.
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import tarfile
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rewardkit._errors import SandboxError
from rewardkit.sandbox.docker.image_languages import (
    LANGUAGES_IMAGE,
    LANGUAGES_LABEL,
    language_packages,
    parse_languages,
)

if TYPE_CHECKING:
    from docker import DockerClient

DEFAULT_IMAGE = "rewardkit-sandbox:latest"
DEFAULT_SUITE = "bookworm"
DEFAULT_MIRROR = "http://deb.debian.org/debian"
BASE_IMAGE = "debian:bookworm-slim"
SANDBOX_UID = 1000
# python3 (not python3-minimal): model-written programs import json, fractions, statistics, ...
PACKAGES = ("python3",)
TRIM_PATHS = (
    "var/cache/apt",
    "var/lib/apt/lists",
    "usr/share/doc",
    "usr/share/man",
    "usr/share/info",
    "usr/share/locale",
    "usr/share/lintian",
    "usr/share/common-licenses",
    "var/log",
)


def dockerfile(languages: tuple[str, ...] = ()) -> str:
    """The Dockerfile of the image holding python3 and the toolchains of ``languages``."""
    packages = " ".join((*PACKAGES, *language_packages(languages)))
    return f"""\
FROM {BASE_IMAGE}
RUN apt-get update && apt-get install -y --no-install-recommends {packages} \\
 && rm -rf /var/lib/apt/lists/* /usr/share/doc /usr/share/man /usr/share/locale \\
 && groupadd -g {SANDBOX_UID} sandbox && useradd -u {SANDBOX_UID} -g {SANDBOX_UID} -M -d /tmp \\
    -s /usr/sbin/nologin sandbox
LABEL org.rewardkit.sandbox=1 {LANGUAGES_LABEL}="{",".join(languages)}"
USER {SANDBOX_UID}
CMD ["python3"]
"""


def import_changes(languages: tuple[str, ...] = ()) -> list[str]:
    """The Dockerfile instructions ``docker import`` applies to the rootfs tarball."""
    return [
        "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        "ENV LANG=C.UTF-8",
        "LABEL org.rewardkit.sandbox=1",
        f'LABEL {LANGUAGES_LABEL}="{",".join(languages)}"',
        f"USER {SANDBOX_UID}",
        'CMD ["python3"]',
    ]


DOCKERFILE = dockerfile()
IMPORT_CHANGES = import_changes()


@dataclass(frozen=True)
class BuildReport:
    """What ``build_image`` did: ``method`` is "exists", "dockerfile", "rootfs" or "rootfs-cached"."""

    image: str
    method: str
    seconds: float
    size_bytes: int
    languages: tuple[str, ...] = ()


def default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "rewardkit"


def docker_client() -> DockerClient:
    """A client for the engine in ``DOCKER_HOST`` (or the local socket); SandboxError when unreachable."""
    try:
        import docker
    except ImportError as exc:  # pragma: no cover - docker is a core dependency
        raise SandboxError("the 'docker' Python package is not installed: pip install docker") from exc
    where = os.environ.get("DOCKER_HOST", "unix:///var/run/docker.sock")
    try:
        client = docker.from_env(timeout=120)
        client.ping()
    except Exception as exc:  # noqa: BLE001 - any failure here means "no engine"
        raise SandboxError(
            f"cannot reach the Docker engine at {where}: {exc}. Start dockerd (or set DOCKER_HOST to a "
            f"reachable engine, e.g. tcp://host:2376 or ssh://user@host)"
        ) from None
    return client


def image_size(client: DockerClient, image: str) -> int | None:
    import docker

    try:
        return int(client.images.get(image).attrs.get("Size") or 0)
    except docker.errors.ImageNotFound:
        return None


def image_languages(client: DockerClient, image: str) -> tuple[str, ...] | None:
    """The languages an image on the engine was built with (its label), or None when it is not there."""
    import docker

    try:
        labels = client.images.get(image).labels or {}
    except docker.errors.ImageNotFound:
        return None
    return parse_languages(labels.get(LANGUAGES_LABEL, ""))


def build_image(
    image: str | None = None,
    *,
    languages: str | Iterable[str] = (),
    method: str = "auto",
    rebuild: bool = False,
    cache_dir: Path | None = None,
    mirror: str = DEFAULT_MIRROR,
    suite: str = DEFAULT_SUITE,
    log: Callable[[str], None] = lambda _msg: None,
) -> BuildReport:
    """Make sure ``image`` exists on the engine, holding the toolchains of ``languages`` ("all", "c,go", a list).

    ``image`` defaults to ``rewardkit-sandbox:latest``, or ``rewardkit-sandbox:languages`` with languages. An
    image already there built with the same languages is left alone; one built with others is rebuilt.
    ``method``: "auto", "dockerfile" or "rootfs".
    """
    if method not in ("auto", "dockerfile", "rootfs"):
        raise SandboxError(f"method must be one of auto, dockerfile, rootfs; got {method!r}")
    wanted = parse_languages(languages)
    image = image or (LANGUAGES_IMAGE if wanted else DEFAULT_IMAGE)
    started = time.monotonic()
    client = docker_client()
    size = image_size(client, image)
    held = image_languages(client, image)
    if size is not None and held == wanted and not rebuild:
        log(f"image {image} already exists ({size / 1e6:.0f} MB); pass --rebuild to build it again")
        return BuildReport(image, "exists", time.monotonic() - started, size, wanted)
    if held is not None and held != wanted:
        log(f"image {image} holds languages [{','.join(held)}], not [{','.join(wanted)}]: building it again")
    used = None
    if method in ("auto", "dockerfile"):
        error = _try_dockerfile(client, image, wanted, log)
        if error is None:
            used = "dockerfile"
        elif method == "dockerfile":
            raise SandboxError(f"building {image} from the Dockerfile failed: {error}")
        else:
            log(f"registry unreachable from the engine ({error}); building from a local root filesystem")
    if used is None:
        cache = cache_dir or default_cache_dir()
        used = _build_from_rootfs(client, image, wanted, cache, mirror, suite, rebuild, log)
    seconds = time.monotonic() - started
    size = image_size(client, image) or 0
    log(f"built {image} by {used} in {seconds:.1f} s ({size / 1e6:.0f} MB)")
    return BuildReport(image, used, seconds, size, wanted)


def _try_dockerfile(
    client: DockerClient, image: str, languages: tuple[str, ...], log: Callable[[str], None]
) -> str | None:
    """Build from the Dockerfile; return None on success, else the reason it failed."""
    import docker

    try:
        client.images.pull(BASE_IMAGE)
    except docker.errors.APIError as exc:
        return str(exc.explanation or exc)
    log(f"pulled {BASE_IMAGE}; building {image} from the Dockerfile")
    context = io.BytesIO()
    with tarfile.open(fileobj=context, mode="w") as tar:
        data = dockerfile(languages).encode()
        info = tarfile.TarInfo("Dockerfile")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    context.seek(0)
    try:
        client.images.build(fileobj=context, custom_context=True, tag=image, rm=True, forcerm=True)
    except (docker.errors.BuildError, docker.errors.APIError) as exc:
        return str(exc)
    return None


def _build_from_rootfs(
    client: DockerClient,
    image: str,
    languages: tuple[str, ...],
    cache_dir: Path,
    mirror: str,
    suite: str,
    rebuild: bool,
    log: Callable[[str], None],
) -> str:
    tarball = cache_dir / "-".join(("sandbox-rootfs", suite, *languages))
    tarball = tarball.with_name(tarball.name + ".tar")
    method = "rootfs-cached"
    if rebuild or not tarball.exists():
        method = "rootfs"
        make_rootfs_tarball(tarball, mirror=mirror, suite=suite, languages=languages, log=log)
    else:
        log(f"using the cached root filesystem {tarball} (delete it or pass --rebuild to refresh)")
    repository, _, tag = image.rpartition(":") if ":" in image.split("/")[-1] else (image, "", "latest")
    log(f"importing {tarball.name} ({tarball.stat().st_size / 1e6:.0f} MB) as {image}")
    try:
        changes = import_changes(languages)
        client.api.import_image_from_file(str(tarball), repository=repository, tag=tag, changes=changes)
    except Exception as exc:  # noqa: BLE001
        raise SandboxError(f"docker import of {tarball} failed: {exc}") from None
    if image_size(client, image) is None:
        raise SandboxError(f"docker import reported success but {image} is not on the engine")
    return method


def make_rootfs_tarball(
    tarball: Path,
    *,
    mirror: str = DEFAULT_MIRROR,
    suite: str = DEFAULT_SUITE,
    languages: tuple[str, ...] = (),
    log: Callable[[str], None] = lambda _msg: None,
) -> None:
    """debootstrap a minimal Debian with python3 (and the toolchains of ``languages``), trim it, add the sandbox
    user, and tar it to ``tarball``."""
    debootstrap = shutil.which("debootstrap")
    if debootstrap is None:
        raise SandboxError(
            "no registry is reachable and debootstrap is not installed: apt-get install debootstrap "
            "(or make Docker Hub reachable from the engine to build from the Dockerfile)"
        )
    if os.geteuid() != 0:
        raise SandboxError("building the sandbox root filesystem with debootstrap needs root (run it with sudo)")
    tarball.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="rk-rootfs-", dir=tarball.parent) as work:
        root = Path(work) / "root"
        include = ",".join((*PACKAGES, *language_packages(languages)))
        cmd = [debootstrap, "--variant=minbase", f"--include={include}", suite, str(root), mirror]
        log("running " + " ".join(cmd))
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            tail = (proc.stderr or proc.stdout)[-2000:]
            raise SandboxError(f"debootstrap failed (exit {proc.returncode}):\n{tail}")
        trim_rootfs(root)
        add_sandbox_user(root)
        partial = tarball.with_suffix(".tar.partial")
        proc = subprocess.run(
            ["tar", "-C", str(root), "--numeric-owner", "--xattrs", "-cf", str(partial), "."],
            capture_output=True,
            text=True,
            check=False,
        )
        if proc.returncode != 0:
            raise SandboxError(f"tar of the root filesystem failed: {proc.stderr[-2000:]}")
        partial.replace(tarball)


def trim_rootfs(root: Path) -> None:
    for rel in TRIM_PATHS:
        target = root / rel
        if target.is_dir():
            for child in target.iterdir():
                if child.is_dir() and not child.is_symlink():
                    shutil.rmtree(child)
                else:
                    child.unlink()


def add_sandbox_user(root: Path) -> None:
    """Append the ``sandbox`` user and group (uid/gid 1000) without running anything inside the rootfs."""
    entries = {
        "etc/passwd": f"sandbox:x:{SANDBOX_UID}:{SANDBOX_UID}:rewardkit sandbox:/tmp:/usr/sbin/nologin\n",
        "etc/group": f"sandbox:x:{SANDBOX_UID}:\n",
        "etc/shadow": "sandbox:!:19000::::::\n",
    }
    for rel, line in entries.items():
        path = root / rel
        text = path.read_text() if path.exists() else ""
        if not any(row.startswith("sandbox:") for row in text.splitlines()):
            path.write_text(text + ("" if text.endswith("\n") or not text else "\n") + line)
