"""Optional experiment trackers (``logging.report_to``): TensorBoard and Weights & Biases, when installed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rewardkit._errors import ConfigError

KNOWN = ("tensorboard", "wandb")


def normalise(report_to: str | list[str]) -> list[str]:
    """``"tensorboard"``, ``["tensorboard", "wandb"]``, ``"none"`` or ``[]`` as a list of tracker names."""
    names = [report_to] if isinstance(report_to, str) else list(report_to)
    names = [n for n in names if n != "none"]
    unknown = [n for n in names if n not in KNOWN]
    if unknown:
        raise ConfigError(
            f"config.logging.report_to: unknown tracker(s) {', '.join(map(repr, unknown))}; "
            f"expected {', '.join(KNOWN)} or none"
        )
    return names


class Reporters:
    """Sends every numeric metric of each step (and each evaluation) to the configured trackers."""

    def __init__(self, names: list[str], output_dir: Path, run_config: dict[str, Any]) -> None:
        self.writers: list[Any] = []
        self.wandb: Any = None
        for name in names:
            if name == "tensorboard":
                self.writers.append(_tensorboard_writer(output_dir / "tensorboard"))
            elif name == "wandb":
                self.wandb = _wandb_run(output_dir, run_config)

    def log(self, metrics: dict[str, Any], step: int) -> None:
        numbers = {
            k: float(v)
            for k, v in metrics.items()
            if k != "step" and isinstance(v, (int, float)) and not isinstance(v, bool)
        }
        for writer in self.writers:
            for key, value in numbers.items():
                writer.add_scalar(key, value, step)
            writer.flush()
        if self.wandb is not None:
            self.wandb.log(numbers, step=step)

    def close(self) -> None:
        for writer in self.writers:
            writer.close()
        self.writers = []
        if self.wandb is not None:
            self.wandb.finish()
            self.wandb = None


def _tensorboard_writer(directory: Path) -> Any:
    try:
        import tensorboard  # noqa: F401 - torch's writer needs it, and says so less clearly
        from torch.utils.tensorboard import SummaryWriter
    except ImportError:
        raise ConfigError(
            "config.logging.report_to: 'tensorboard' needs the tensorboard package, which is not installed: "
            "pip install tensorboard"
        ) from None
    return SummaryWriter(log_dir=str(directory))


def _wandb_run(output_dir: Path, run_config: dict[str, Any]) -> Any:
    try:
        import wandb
    except ImportError:
        raise ConfigError(
            "config.logging.report_to: 'wandb' needs the wandb package, which is not installed: pip install wandb"
        ) from None
    return wandb.init(dir=str(output_dir), config=run_config, name=output_dir.name, reinit=True)
