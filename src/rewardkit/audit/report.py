"""The audit's result as a rich table on the terminal, and as a self-contained HTML page."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from rewardkit.audit.runner import AuditResult


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _verdict(result: AuditResult, credited: set[tuple[str, str]], r: Any) -> str:
    if (r.kind, r.name) in credited:
        return "CREDITED" if r.is_hack else "CREDITED (wrong = correct)"
    return "not credited" if r.is_hack else "baseline"


def print_table(console: Any, result: AuditResult) -> None:
    from rich.table import Table

    credited = {(r.kind, r.name) for r in result.credited()}
    table = Table(title=f"reward-hack audit of {result.reward} (credited: mean > honest wrong + {result.threshold})")
    for column, justify in (
        ("kind", "left"),
        ("variant", "left"),
        ("mean", "right"),
        ("vs wrong", "right"),
        ("vs correct", "right"),
        ("rows above wrong", "right"),
        ("statuses (per term)", "left"),
        ("verdict", "left"),
    ):
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    for r in result.results:
        wrong, correct = result.baseline(r.kind), result.baseline(r.kind, "honest_correct")
        delta = None if r.mean is None or wrong is None else r.mean - wrong
        ratio = None if r.mean is None or correct is None else r.mean - correct
        verdict = _verdict(result, credited, r)
        style = "bold red" if verdict.startswith("CREDITED") else "dim" if verdict == "baseline" else ""
        statuses = ", ".join(f"{k} {v}" for k, v in r.statuses.most_common())
        above = f"{r.rows_above(result.threshold)}/{len(r.scores)}" if r.is_hack else ""
        table.add_row(
            r.kind,
            r.name,
            _fmt(r.mean),
            _fmt(delta),
            _fmt(ratio),
            above,
            statuses,
            f"[{style}]{verdict}[/{style}]" if style else verdict,
        )
    console.print(table)
    for kind in dict.fromkeys(r.kind for r in result.results):
        wrong, correct = result.baseline(kind), result.baseline(kind, "honest_correct")
        if wrong is not None and correct is not None and correct <= wrong:
            console.print(
                f"[yellow]warning[/yellow]: on the {kind} rows the honest correct answer ({correct:.3f}) "
                f"does not score above the honest wrong one ({wrong:.3f}); the audit cannot tell hacks "
                f"from wrong answers there",
                soft_wrap=True,
            )


def write_html(path: str | Path, result: AuditResult) -> Path:
    """One page: the verdict, then per variant its mean, its difference from the baselines and an example."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    credited = {(r.kind, r.name) for r in result.credited()}
    rows = []
    for r in result.results:
        wrong, correct = result.baseline(r.kind), result.baseline(r.kind, "honest_correct")
        verdict = _verdict(result, credited, r)
        colour = "#fdd" if verdict.startswith("CREDITED") else {"baseline": "#eef"}.get(verdict, "#efe")
        width = 0 if r.mean is None or not correct else max(0.0, min(1.0, r.mean / correct)) * 100
        rows.append(
            f"<tr style='background:{colour}'><td>{html.escape(r.kind)}</td><td>{html.escape(r.name)}</td>"
            f"<td>{_fmt(r.mean)}<div style='background:#888;height:6px;width:{width:.0f}%'></div></td>"
            f"<td>{_fmt(None if r.mean is None or wrong is None else r.mean - wrong)}</td>"
            f"<td>{html.escape(verdict)}</td><td>{html.escape(', '.join(f'{k} {v}' for k, v in r.statuses.items()))}"
            f"</td><td><pre>{html.escape(r.example[:600])}</pre></td></tr>"
        )
    status = f"{len(credited)} hack(s) credited" if credited else "no hack credited"
    page = f"""<!doctype html>
<html><head><meta charset="utf-8"><title>rewardkit audit: {html.escape(result.reward)}</title>
<style>body{{font-family:sans-serif;margin:2em}} table{{border-collapse:collapse}}
td,th{{border:1px solid #ccc;padding:4px 8px;vertical-align:top}}
pre{{white-space:pre-wrap;max-width:50em;margin:0}}</style>
</head><body><h1>Reward-hack audit: {html.escape(result.reward)}</h1>
<p><b>{status}</b>. A hack is credited when its mean score exceeds the honest wrong answer's by more than
{result.threshold}. The bar shows the mean as a fraction of the honest correct answer's score.</p>
<table><tr><th>kind</th><th>variant</th><th>mean</th><th>vs wrong</th><th>verdict</th><th>statuses</th>
<th>example completion</th></tr>
{chr(10).join(rows)}
</table></body></html>
"""
    path.write_text(page, encoding="utf-8")
    return path
