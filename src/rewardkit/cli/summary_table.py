"""A scoring run's summary as rich tables (``rewardkit score``, Ray scoring)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

    from rewardkit.scoring.batch_scoring import ScoreSummary


def print_summary(console: Console, name: str, summary: ScoreSummary, output_path: str | None) -> None:
    from rich.table import Table

    def fmt(value: float | None) -> str:
        return "n/a" if value is None else f"{value:.4f}"

    table = Table(title=f"reward {name}: {summary.samples} samples")
    table.add_column("component")
    table.add_column("mean", justify="right")
    table.add_column("rows scored", justify="right")
    table.add_row("[bold]total", fmt(summary.reward_mean), str(summary.samples - summary.not_applicable))
    for label, mean in summary.component_means.items():
        table.add_row(label, fmt(mean), str(summary.component_counts[label]))
    console.print(table)
    if summary.statuses:
        statuses = Table(title="verdict statuses (samples with the status; then per verifier term)")
        statuses.add_column("status")
        statuses.add_column("samples", justify="right")
        terms = list(summary.term_statuses)
        for label in terms:
            statuses.add_column(label, justify="right")
        for status, count in summary.statuses.most_common():
            statuses.add_row(str(status), str(count), *(str(summary.term_statuses[t].get(status, 0)) for t in terms))
        console.print(statuses)
    extra = "".join(
        f"   {n} {what}"
        for n, what in (
            (summary.infrastructure_failures, "not judged (infrastructure failures: reward null)"),
            (summary.resumed, "resumed from the output"),
            (summary.skipped, "invalid lines skipped"),
        )
        if n
    )
    console.print(
        f"hedges caught: {summary.hedged}   timeouts caught: {summary.timeouts} (samples)   "
        f"{summary.samples_per_second:.1f} samples/s ({summary.seconds:.2f} s){extra}"
        + (f"   written to {output_path}" if output_path else "")
    )
