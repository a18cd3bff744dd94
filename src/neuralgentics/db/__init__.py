"""Database plumbing, apart from any SQL a store holds: a foundation every area with tables uses.

- `migrations`: the one migration runner, for both backends and every component (memini's
  memories and project index, the orchestrator's task records, the broker's audit rows). Each
  component ships `NNN_name.sql` files per backend; the runner applies the pending ones in
  order, one transaction each, and records them in `schema_versions` (component, version,
  checksum). Concurrent processes serialise (SQLite: the write lock; PostgreSQL: an advisory lock).
- `sqlite.SQLiteDatabase`: one connection per thread with the project's pragmas (WAL,
  synchronous=FULL, foreign keys, busy timeout), `transaction()` (BEGIN IMMEDIATE), private
  file modes, and sqlite3 errors mapped onto `errors`.
- `postgres.PostgresDatabase`: a psycopg pool, retry of aborted transactions, a circuit breaker
  while the server is down, and every driver error mapped onto `errors` in one place.

Stores hold only their queries and take one of these (`store.db`); a second store over the same
database (the project index beside the memories) shares it through that public attribute.
"""
