"""Read samples for batch scoring (JSONL, parquet, a saved ``datasets`` dataset) and write scored rows."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from rewardkit._errors import ConfigError


def read_samples(path: str | Path, split: str | None = None) -> list[dict[str, Any]]:
    """Every row of ``path`` as a dict: a ``.jsonl``/``.json`` file (one object a line), a ``.parquet``
    file, or a directory written by ``datasets``' ``save_to_disk`` (``split`` picks from a DatasetDict)."""
    path = Path(path)
    if not path.exists():
        raise ConfigError(f"input {str(path)!r} does not exist")
    if path.is_dir():
        return _read_saved_dataset(path, split)
    suffix = path.suffix.lower()
    if suffix == ".parquet":
        return _read_parquet(path)
    if suffix in (".jsonl", ".json", ".ndjson"):
        return _read_jsonl(path)
    raise ConfigError(
        f"input {str(path)!r}: unknown format {suffix or '(no suffix)'}; expected .jsonl, .parquet, "
        f"or a directory saved with datasets' save_to_disk"
    )


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    rows = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ConfigError(f"{path}:{number}: not valid JSON ({exc.msg})") from None
            if not isinstance(row, dict):
                raise ConfigError(f"{path}:{number}: expected a JSON object per line, got {type(row).__name__}")
            rows.append(row)
    return rows


def _read_parquet(path: Path) -> list[dict[str, Any]]:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise ConfigError(
            f"reading {str(path)!r} needs pyarrow, which is not installed: pip install pyarrow"
        ) from None
    return pq.read_table(path).to_pylist()


def _read_saved_dataset(path: Path, split: str | None) -> list[dict[str, Any]]:
    try:
        import datasets
    except ImportError:
        raise ConfigError(
            f"{str(path)!r} is a directory, read as a saved `datasets` dataset, but `datasets` is not "
            f"installed: pip install datasets (or pip install 'rewardkit[train]')"
        ) from None
    try:
        loaded = datasets.load_from_disk(str(path))
    except FileNotFoundError as exc:
        raise ConfigError(f"{str(path)!r} is not a dataset saved with save_to_disk: {exc}") from None
    if isinstance(loaded, datasets.DatasetDict):
        names = list(loaded)
        chosen = split or ("train" if "train" in loaded else names[0] if len(names) == 1 else None)
        if chosen not in loaded:
            raise ConfigError(
                f"{str(path)!r} holds splits {', '.join(names)}; pick one with --split"
                + (f" (no split {split!r})" if split else "")
            )
        loaded = loaded[chosen]
    return loaded.to_list()


def write_rows(path: str | Path, rows: Iterable[dict[str, Any]]) -> None:
    """Write scored rows as JSONL, or as parquet when ``path`` ends in ``.parquet``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    rows = list(rows)
    if path.suffix.lower() == ".parquet":
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError:
            raise ConfigError("writing parquet output needs pyarrow: pip install pyarrow") from None
        pq.write_table(pa.Table.from_pylist([_jsonable_nested(r) for r in rows]), path)
        return
    with path.open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False, default=str) + "\n")


def _jsonable_nested(row: dict[str, Any]) -> dict[str, Any]:
    # Parquet needs one type per column; the per-component maps vary by row, so they travel as JSON text.
    return {k: json.dumps(v, default=str) if isinstance(v, dict) else v for k, v in row.items()}
