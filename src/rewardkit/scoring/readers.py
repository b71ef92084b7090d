"""Read samples for batch scoring, one at a time: JSONL, parquet, or a saved ``datasets`` dataset.

Every sample carries where it came from (``file:line`` for JSONL, ``file row N`` otherwise), so an error or
a skipped sample names the place in the file, not a position in a batch.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rewardkit._errors import ConfigError
from rewardkit._install import extra_hint
from rewardkit._jsonl import iter_jsonl

JSONL_SUFFIXES = (".jsonl", ".json", ".ndjson")
PARQUET_BATCH_ROWS = 1024


@dataclass(frozen=True)
class Sample:
    """One input row (``row``), or why the line is not one (``error``), with its place in the file."""

    where: str
    row: dict[str, Any] | None
    error: str | None = None


def missing_completion(row: dict[str, Any], completion_key: str) -> str | None:
    """Why ``row`` cannot be scored for want of its completion field, or None when it has one: the one message
    in-process and Ray Data scoring give."""
    if completion_key in row:
        return None
    return f"no {completion_key!r} field (set --completion-key); its fields: {', '.join(row) or '(none)'}"


def iter_samples(path: str | Path, split: str | None = None) -> Iterator[Sample]:
    """Every row of ``path``, streamed: a ``.jsonl``/``.json``/``.ndjson`` file (one object a line), a
    ``.parquet`` file, or a directory written by ``datasets``' ``save_to_disk`` (``split`` picks from a
    DatasetDict). A line that is not a JSON object comes as a Sample with ``error`` set. Format errors
    (missing file, unknown suffix, a ``split`` that does not exist) raise before the first row."""
    path = Path(path)
    kind = input_format(path)
    if kind == "dataset":
        return _iter_saved_dataset(path, open_saved_dataset(path, split))
    if kind == "parquet":
        return _iter_parquet(path, open_parquet(path))
    return _iter_jsonl(path)


def input_format(path: Path) -> str:
    """``dataset`` (a ``save_to_disk`` directory), ``parquet`` or ``jsonl``; ConfigError for anything else."""
    if not path.exists():
        raise ConfigError(f"input {str(path)!r} does not exist")
    if path.is_dir():
        return "dataset"
    suffix = path.suffix.lower()
    if suffix == ".parquet":
        return "parquet"
    if suffix in JSONL_SUFFIXES:
        return "jsonl"
    raise ConfigError(
        f"input {str(path)!r}: unknown format {suffix or '(no suffix)'}; expected .jsonl, .parquet, "
        f"or a directory saved with datasets' save_to_disk"
    )


def read_samples(path: str | Path, split: str | None = None) -> list[dict[str, Any]]:
    """Every row of ``path`` as a dict (see :func:`iter_samples`); the first bad line raises ConfigError."""
    rows = []
    for sample in iter_samples(path, split):
        if sample.row is None:
            raise ConfigError(f"{sample.where}: {sample.error}")
        rows.append(sample.row)
    return rows


def count_samples(path: str | Path, split: str | None = None) -> int | None:
    """How many rows ``path`` holds (JSONL: non-blank lines), cheaply; None when it cannot tell."""
    path = Path(path)
    try:
        if path.is_dir():
            return len(open_saved_dataset(path, split))
        if path.suffix.lower() == ".parquet":
            return int(open_parquet(path).metadata.num_rows)
        with path.open("rb") as handle:
            return sum(1 for line in handle if line.strip())
    except (ConfigError, OSError):
        return None


def _iter_jsonl(path: Path) -> Iterator[Sample]:
    for line in iter_jsonl(path):
        yield Sample(line.where, line.row, line.error)


def open_parquet(path: Path) -> Any:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise ConfigError(f"reading {str(path)!r} needs pyarrow, which is not installed: pip install pyarrow") from None
    import pyarrow as pa

    try:
        return pq.ParquetFile(path)
    except (pa.ArrowException, OSError) as exc:
        raise ConfigError(f"{str(path)!r} is not a readable parquet file: {exc}") from None


def _iter_parquet(path: Path, parquet: Any) -> Iterator[Sample]:
    number = 0
    for batch in parquet.iter_batches(batch_size=PARQUET_BATCH_ROWS):
        for row in batch.to_pylist():
            number += 1
            yield Sample(f"{path} row {number}", row)


def open_saved_dataset(path: Path, split: str | None) -> Any:
    try:
        import datasets
    except ImportError:
        raise ConfigError(
            f"{str(path)!r} is a directory, read as a saved `datasets` dataset, but `datasets` is not "
            f"installed: pip install datasets (or {extra_hint('train')})"
        ) from None
    try:
        loaded = datasets.load_from_disk(str(path))
    except FileNotFoundError as exc:
        raise ConfigError(f"{str(path)!r} is not a dataset saved with save_to_disk: {exc}") from None
    if not isinstance(loaded, datasets.DatasetDict):
        if split is not None:
            raise ConfigError(
                f"--split {split!r}: {str(path)!r} is a single Dataset, not a DatasetDict, so it has no "
                f"splits; drop --split"
            )
        return loaded
    names = list(loaded)
    chosen = split or ("train" if "train" in loaded else names[0] if len(names) == 1 else None)
    if chosen not in loaded:
        raise ConfigError(
            f"{str(path)!r} holds splits {', '.join(names)}; pick one with --split"
            + (f" (no split {split!r})" if split else "")
        )
    return loaded[chosen]


def _iter_saved_dataset(path: Path, dataset: Any) -> Iterator[Sample]:
    for number, row in enumerate(dataset, 1):  # memory-mapped: rows are read as they are asked for
        yield Sample(f"{path} row {number}", dict(row))
