"""``rewardkit sandbox-image``: build the image the Docker sandbox backend runs programs in."""

from __future__ import annotations

import click

from rewardkit._errors import SandboxError
from rewardkit.sandbox.docker.image_build import DEFAULT_IMAGE, DEFAULT_MIRROR, DEFAULT_SUITE, build_image
from rewardkit.sandbox.docker.image_languages import LANGUAGE_PACKAGES, LANGUAGES_IMAGE


@click.command("sandbox-image")
@click.option(
    "--image",
    default=None,
    help=f"Name:tag of the image to build [default: {DEFAULT_IMAGE}, or {LANGUAGES_IMAGE} with --languages].",
)
@click.option(
    "--languages",
    default="",
    metavar="all|LANG,...",
    help=f"Add native toolchains: 'all' or a comma list of {', '.join(LANGUAGE_PACKAGES)}.",
)
@click.option(
    "--method",
    type=click.Choice(["auto", "dockerfile", "rootfs"]),
    default="auto",
    show_default=True,
    help="auto: the Dockerfile when the engine can pull the base image, else debootstrap + docker import.",
)
@click.option("--rebuild", is_flag=True, help="Build even if the image exists (and refresh the cached rootfs).")
@click.option("--mirror", default=DEFAULT_MIRROR, show_default=True, help="Debian mirror for debootstrap.")
@click.option("--suite", default=DEFAULT_SUITE, show_default=True, help="Debian release for debootstrap.")
def sandbox_image(image: str | None, languages: str, method: str, rebuild: bool, mirror: str, suite: str) -> None:
    """Build the Docker sandbox image (honours DOCKER_HOST, so it can build on a remote engine)."""
    try:
        report = build_image(
            image,
            languages=languages,
            method=method,
            rebuild=rebuild,
            mirror=mirror,
            suite=suite,
            log=lambda msg: click.echo(msg, err=True),
        )
    except SandboxError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"{report.image} ready ({report.method}, {report.seconds:.1f} s, {report.size_bytes / 1e6:.0f} MB)")
