"""The ``rewardkit train`` progress bar: step, reward, accuracy, seconds per step, ETA (rich)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from typing_extensions import Self


def accuracy_of(metrics: dict[str, Any]) -> float | None:
    """The mean of the first reward component whose label says accuracy (``reward/<label>/mean``)."""
    for key, value in metrics.items():
        if key.startswith("reward/") and key.endswith("/mean") and "acc" in key and isinstance(value, float):
            return value
    return None


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


class TrainProgress:
    """Advances once per training step; evaluation rows update the shown greedy reward."""

    def __init__(self, console: Any, total: int, start: int, *, disabled: bool = False) -> None:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        self.progress = Progress(
            TextColumn("[bold]train"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn(
                "reward {task.fields[reward]}  acc {task.fields[acc]}  eval {task.fields[eval]}  "
                "{task.fields[sps]} s/step"
            ),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=console,
            disable=disabled,
        )
        self.task = self.progress.add_task(
            "train", total=total, completed=start, reward="-", acc="-", eval="-", sps="-"
        )

    def update(self, row: dict[str, Any]) -> None:
        if "reward/mean" not in row:  # an evaluation
            value = row.get("eval/reward", row.get("eval_train/reward"))
            self.progress.update(self.task, eval=_fmt(value))
            return
        self.progress.update(
            self.task,
            advance=1,
            reward=_fmt(row["reward/mean"]),
            acc=_fmt(accuracy_of(row)),
            sps=f"{row.get('time/step_s', 0.0):.2f}",
        )

    def __enter__(self) -> Self:
        self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.stop()
