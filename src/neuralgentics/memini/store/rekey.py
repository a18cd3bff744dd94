"""Re-keying every memory's de-duplication key to `scopes.dedup_key` (issue 28 item 4): the
Python part of migration sqlite 007 / postgres 0006, run inside its transaction.

The file's SQL first gives every row a provisional key unique by its id, so that no new key
meets an old one half-way through (a text may be exactly the JSON array another row's key is
made from). Two rows cannot end with the same new key: the old keys already told different
owners' texts apart except where they collided, and a collision had kept the second row out.
A row whose text cannot be read as text (a damaged row: memini/store/repair.py) keeps its
provisional key, which no new text can match.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from neuralgentics.memini.scopes import owner_key

_READ = "SELECT id, scope, project, agent, session, content FROM memories"


def _keys(rows: list[tuple]) -> list[tuple[str, str]]:
    out = []
    for mid, scope, project, agent, session, content in rows:
        if isinstance(content, str) and all(
            isinstance(v, str) for v in (scope, project, agent, session)
        ):
            out.append((owner_key(scope, project, agent, session, content), mid))
    return out


def rekey_sqlite(conn: sqlite3.Connection) -> None:
    rows = conn.execute(_READ).fetchall()
    conn.executemany("UPDATE memories SET content_hash = ? WHERE id = ?", _keys(rows))


def rekey_postgres(conn: Any) -> None:
    rows = conn.execute(_READ).fetchall()
    with conn.cursor() as cur:
        cur.executemany("UPDATE memories SET content_hash = %s WHERE id = %s", _keys(rows))
