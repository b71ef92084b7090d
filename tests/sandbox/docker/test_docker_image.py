"""The sandbox image builder: rootfs preparation helpers, and the built image itself when it is present."""

from __future__ import annotations

import pytest

from rewardkit._errors import SandboxError
from rewardkit.sandbox.docker.image_build import (
    DEFAULT_IMAGE,
    SANDBOX_UID,
    add_sandbox_user,
    build_image,
    trim_rootfs,
)
from rk_testing import docker_problem, require


def test_add_sandbox_user_appends_once(tmp_path):
    etc = tmp_path / "etc"
    etc.mkdir()
    (etc / "passwd").write_text("root:x:0:0:root:/root:/bin/bash\n")
    (etc / "group").write_text("root:x:0:")  # no trailing newline
    add_sandbox_user(tmp_path)
    add_sandbox_user(tmp_path)
    passwd = (etc / "passwd").read_text().splitlines()
    group = (etc / "group").read_text().splitlines()
    assert passwd == [
        "root:x:0:0:root:/root:/bin/bash",
        f"sandbox:x:{SANDBOX_UID}:{SANDBOX_UID}:rewardkit sandbox:/tmp:/usr/sbin/nologin",
    ]
    assert group == ["root:x:0:", f"sandbox:x:{SANDBOX_UID}:"]
    assert (etc / "shadow").read_text().startswith("sandbox:!:")


def test_trim_rootfs_empties_docs_and_caches_but_keeps_the_rest(tmp_path):
    for rel in (
        "usr/share/doc/pkg/copyright",
        "var/cache/apt/archives/x.deb",
        "usr/share/locale/de/x.mo",
        "usr/lib/python3.11/os.py",
        "usr/share/zoneinfo/UTC",
    ):
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x")
    trim_rootfs(tmp_path)
    assert list((tmp_path / "usr/share/doc").iterdir()) == []
    assert list((tmp_path / "var/cache/apt").iterdir()) == []
    assert list((tmp_path / "usr/share/locale").iterdir()) == []
    assert (tmp_path / "usr/lib/python3.11/os.py").exists()
    assert (tmp_path / "usr/share/zoneinfo/UTC").exists()


def test_unknown_method_is_refused():
    with pytest.raises(SandboxError, match="method must be one of auto, dockerfile, rootfs"):
        build_image(method="podman")


@pytest.mark.docker
def test_the_built_image_has_python_the_user_and_the_label():
    import docker

    problem = docker_problem(DEFAULT_IMAGE)
    require(problem is None, str(problem))
    client = docker.from_env(timeout=10)
    image = client.images.get(DEFAULT_IMAGE)
    assert image.labels.get("org.rewardkit.sandbox") == "1"
    out = client.containers.run(
        DEFAULT_IMAGE,
        ["python3", "-c", "import json, fractions, statistics, ctypes, os; print(os.getuid())"],
        network_mode="none",
        remove=True,
    )
    assert out.strip() == str(SANDBOX_UID).encode()  # the image's default user is the unprivileged one
    passwd = client.containers.run(
        DEFAULT_IMAGE, ["grep", "^sandbox:", "/etc/passwd"], network_mode="none", remove=True
    )
    assert passwd.startswith(f"sandbox:x:{SANDBOX_UID}:".encode())


def test_sandbox_image_command_names_an_unreachable_engine(tmp_path):
    from click.testing import CliRunner

    from rewardkit.cli import main

    sock = tmp_path / "no-engine.sock"
    result = CliRunner().invoke(main, ["sandbox-image"], env={"DOCKER_HOST": f"unix://{sock}"})
    assert result.exit_code == 1
    assert f"cannot reach the Docker engine at unix://{sock}" in result.output
