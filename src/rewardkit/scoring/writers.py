"""Write scored rows as they are scored: JSONL (resumable), CSV, or parquet.

Each writer takes rows chunk by chunk and flushes after every chunk, so an interrupted run leaves every
finished chunk on disk. Only JSONL can be resumed: a CSV or parquet file cannot be told apart from a
partly written one reliably (parquet needs its footer, written at close).
"""

from __future__ import annotations

import csv
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO, TextIO

from rewardkit._errors import ConfigError
from rewardkit._jsonl import iter_jsonl
from rewardkit.scoring.readers import JSONL_SUFFIXES

SCORE_FIELDS = ("reward", "components", "status", "extracted", "verdicts")


def output_format(path: str | Path) -> str:
    """``jsonl``, ``csv`` or ``parquet`` from the suffix of ``path``; anything else is a ConfigError."""
    suffix = Path(path).suffix.lower()
    if suffix in JSONL_SUFFIXES:
        return "jsonl"
    if suffix in (".csv", ".parquet"):
        return suffix[1:]
    raise ConfigError(
        f"output {str(path)!r}: unknown format {suffix or '(no suffix)'}; expected .jsonl (also .json, "
        f".ndjson), .csv or .parquet"
    )


def open_writer(path: str | Path, *, append: bool = False) -> Any:
    """A writer for ``path``'s format; ``append`` continues a JSONL file (``--resume``)."""
    path = Path(path)
    kind = output_format(path)
    if append and kind != "jsonl":
        raise ConfigError(f"--resume needs a .jsonl output, got {str(path)!r} ({kind} cannot be resumed)")
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "jsonl":
        return JsonlWriter(path, append)
    if kind == "csv":
        return CsvWriter(path)
    return ParquetWriter(path)


class JsonlWriter:
    def __init__(self, path: Path, append: bool) -> None:
        self.handle: TextIO = path.open("a" if append else "w", encoding="utf-8")

    def write(self, rows: list[dict[str, Any]]) -> None:
        self.handle.write("".join(json_line(r) for r in rows))
        self.handle.flush()
        os.fsync(self.handle.fileno())

    def close(self) -> None:
        self.handle.close()


def json_line(row: dict[str, Any]) -> str:
    """One row as a JSON line; text that UTF-8 cannot hold (a lone surrogate such as ``\\ud800``, which JSON
    input may carry) is written escaped, so the row reads back exactly."""
    line = json.dumps(row, ensure_ascii=False, default=str)
    try:
        line.encode("utf-8")
    except UnicodeEncodeError:
        line = json.dumps(row, ensure_ascii=True, default=str)
    return line + "\n"


_SURROGATES = re.compile("[\ud800-\udfff]")


def encodable(value: Any) -> Any:
    """``value`` with every lone surrogate in its strings replaced by U+FFFD (CSV and parquet need UTF-8)."""
    if isinstance(value, str):
        return _SURROGATES.sub("\ufffd", value) if _SURROGATES.search(value) else value
    if isinstance(value, dict):
        return {encodable(k): encodable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [encodable(v) for v in value]
    return value


class CsvWriter:
    """Columns are fixed by the first chunk; nested values (chat messages, components) are JSON text."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.handle: TextIO = path.open("w", encoding="utf-8", newline="")
        self.writer: csv.DictWriter[str] | None = None

    def write(self, rows: list[dict[str, Any]]) -> None:
        if not rows:
            return
        if self.writer is None:
            columns: dict[str, None] = {}
            for row in rows:
                columns.update(dict.fromkeys(row))
            self.writer = csv.DictWriter(self.handle, fieldnames=list(columns))
            self.writer.writeheader()
        known = set(self.writer.fieldnames)
        for row in rows:
            extra = [k for k in row if k not in known]
            if extra:
                raise ConfigError(
                    f"output {str(self.path)!r}: a row has field(s) {', '.join(extra)} that the first rows did "
                    f"not have; CSV needs one set of columns (write .jsonl instead)"
                )
            self.writer.writerow({k: _cell(encodable(v)) for k, v in row.items()})
        self.handle.flush()

    def close(self) -> None:
        self.handle.close()


def _cell(value: Any) -> Any:
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False, default=str)
    return "" if value is None else value


class ParquetWriter:
    """The schema comes from the first chunk; the per-component maps travel as JSON text."""

    def __init__(self, path: Path) -> None:
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError:
            raise ConfigError("writing parquet output needs pyarrow: pip install pyarrow") from None
        self.path, self.pa, self.pq = path, pa, pq
        self.writer: Any = None

    def write(self, rows: list[dict[str, Any]]) -> None:
        if not rows:
            return
        pa = self.pa
        rows = [_jsonable_nested(encodable(r)) for r in rows]
        if self.writer is None:
            inferred = pa.Table.from_pylist(rows).schema
            fixed = {
                "reward": pa.float64(),
                "status": pa.string(),
                "extracted": pa.string(),
                "components": pa.string(),
                "verdicts": pa.string(),
            }
            schema = pa.schema([pa.field(f.name, fixed.get(f.name, f.type)) for f in inferred])
            self.writer = self.pq.ParquetWriter(self.path, schema)
        try:
            table = pa.Table.from_pylist(rows, schema=self.writer.schema)
        except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
            raise ConfigError(
                f"output {str(self.path)!r}: a later chunk does not fit the parquet columns of the first "
                f"({exc}); write .jsonl instead"
            ) from None
        self.writer.write_table(table)

    def close(self) -> None:
        if self.writer is None:  # no rows: still leave a valid (empty) file behind
            self.pq.write_table(self.pa.table({}), self.path)
        else:
            self.writer.close()


def _jsonable_nested(row: dict[str, Any]) -> dict[str, Any]:
    # Parquet needs one type per column; the per-component maps vary by row, so they travel as JSON text.
    return {k: json.dumps(v, default=str) if isinstance(v, dict) else v for k, v in row.items()}


def existing_rows(path: str | Path) -> Iterator[dict[str, Any]]:
    """The complete rows of an interrupted JSONL output, in order. A last line cut off mid-write (no
    newline, or not JSON) is removed from the file first, so the resumed run writes it again."""
    path = Path(path)
    if not path.exists():
        return iter(())
    with path.open("rb+") as handle:
        end = handle.seek(0, os.SEEK_END)
        keep = _after_last_newline(handle, end)
        if keep < end:
            handle.truncate(keep)
    return _read_existing(path)


def _after_last_newline(handle: BinaryIO, end: int, block: int = 1 << 16) -> int:
    position = end
    while position > 0:
        start = max(0, position - block)
        handle.seek(start)
        found = handle.read(position - start).rfind(b"\n")
        if found >= 0:
            return start + found + 1
        position = start
    return 0


def _read_existing(path: Path) -> Iterator[dict[str, Any]]:
    for line in iter_jsonl(path):
        if line.row is None:
            raise ConfigError(f"--resume: {line.where} is not a scored row ({line.error})")
        if "reward" not in line.row:
            raise ConfigError(f"--resume: {line.where} is not a scored row (no 'reward' field)")
        yield line.row


def same_input(scored: dict[str, Any], row: dict[str, Any]) -> str | None:
    """None when the scored output row was made from input ``row``; else the first field that differs."""
    written: dict[str, Any] = json.loads(json.dumps(row, ensure_ascii=False, default=str))
    for key, value in written.items():
        if key in SCORE_FIELDS:
            continue
        if key not in scored or scored[key] != value:
            return key
    return None
