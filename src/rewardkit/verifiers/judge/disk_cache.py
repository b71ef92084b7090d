"""The judge's verdicts on disk: one sqlite file in ``cache_dir``, shared by threads and processes.

Keyed by a hash of everything that decides the verdict: the endpoint (base URL and model), both templates,
the question, reference and completion as sent, temperature and ``max_tokens``. sqlite in WAL mode with a
busy timeout lets many readers and one writer at a time work on the file; each thread (and each forked
process) opens its own connection. Only verdicts the judge gave are stored, never a failed call.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from rewardkit._errors import ConfigError

FILE_NAME = "judge_verdicts.sqlite3"
_SCHEMA = "CREATE TABLE IF NOT EXISTS verdicts (key TEXT PRIMARY KEY, verdict TEXT NOT NULL, created REAL NOT NULL)"


def cache_key(parts: dict[str, Any]) -> str:
    """The hash of a call's deciding parts (any JSON-able mapping; key order does not matter)."""
    return hashlib.sha256(json.dumps(parts, sort_keys=True, ensure_ascii=False, default=str).encode()).hexdigest()


class VerdictCache:
    """``get(key)`` and ``put(key, record)`` of JSON records in ``<cache_dir>/judge_verdicts.sqlite3``."""

    def __init__(self, cache_dir: str | os.PathLike[str], *, timeout: float = 30.0) -> None:
        self.path = Path(cache_dir).expanduser() / FILE_NAME
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ConfigError(f"judge: cache_dir {str(cache_dir)!r} cannot be created: {exc}") from None
        self.timeout = timeout
        self._local = threading.local()
        with self._connection() as db:
            db.execute(_SCHEMA)

    def _connection(self) -> sqlite3.Connection:
        db: sqlite3.Connection | None = getattr(self._local, "db", None)
        if db is None or getattr(self._local, "pid", None) != os.getpid():
            db = sqlite3.connect(self.path, timeout=self.timeout, isolation_level=None)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            self._local.db, self._local.pid = db, os.getpid()
        return db

    def get(self, key: str) -> dict[str, Any] | None:
        row = self._connection().execute("SELECT verdict FROM verdicts WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        try:
            record = json.loads(row[0])
        except ValueError:
            return None
        return record if isinstance(record, dict) else None

    def get_many(self, keys: list[str], chunk: int = 500) -> dict[str, dict[str, Any]]:
        """The records stored under ``keys`` (those found), in one query per ``chunk`` keys."""
        found: dict[str, dict[str, Any]] = {}
        db = self._connection()
        for start in range(0, len(keys), chunk):
            part = keys[start : start + chunk]
            marks = ",".join("?" * len(part))
            for key, text in db.execute(f"SELECT key, verdict FROM verdicts WHERE key IN ({marks})", part):
                try:
                    record = json.loads(text)
                except ValueError:
                    continue
                if isinstance(record, dict):
                    found[key] = record
        return found

    def put(self, key: str, record: dict[str, Any]) -> None:
        self._connection().execute(
            "INSERT OR REPLACE INTO verdicts (key, verdict, created) VALUES (?, ?, ?)",
            (key, json.dumps(record, ensure_ascii=False), time.time()),
        )

    def __len__(self) -> int:
        return int(self._connection().execute("SELECT COUNT(*) FROM verdicts").fetchone()[0])

    def close(self) -> None:
        db = getattr(self._local, "db", None)
        if db is not None and getattr(self._local, "pid", None) == os.getpid():
            db.close()
        self._local = threading.local()
