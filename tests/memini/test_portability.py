"""Export and import (issue 17, item 7) on both stores: what a user moving their memories to
another store or machine would check — everything comes back (ids, trust history, edges,
supersession), twice changes nothing, a bad or cut file changes nothing, conflicts are
reported and never overwritten, and SQLite → PostgreSQL → SQLite gives the same file."""

from __future__ import annotations

import io
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from support.cli import CliResult, neuralgentics
from support.postgres import drop_database, fresh_database

from neuralgentics.app.core import create_app
from neuralgentics.config import Settings
from neuralgentics.memini.portability import (
    BadImportFile,
    ImportConflicts,
    export_lines,
    import_file,
)
from neuralgentics.memini.portability.importer import model_id
from neuralgentics.memini.service import MemoryService
from neuralgentics.memini.store.sqlite import SQLiteStore


def run(args: list[str], env: dict[str, str]) -> CliResult:
    """A command in-process (tests/support/cli.py), with `env` set for it only."""
    return neuralgentics(*args, env=env)


def _fill(service: MemoryService) -> dict[str, str]:
    """A small history: a superseded fact, a contradiction, trust events, metadata, tags."""
    old = service.add("CI runs on GitHub Actions", project="web", detection="off").memory
    new = service.add(
        "CI moved to Buildkite", project="web", supersedes=[old.id], detection="off"
    ).memory
    port = service.add(
        "The API listens on port 8080",
        project="web",
        tags=["api", "ports"],
        metadata={"source": {"file": "README.md", "line": 12}, "n": 1.5},
        source_type="fact",
        detection="off",
    ).memory
    other = service.add("The API listens on port 9090", project="web", detection="off").memory
    service.relate(other.id, port.id, "CONTRADICTS", confidence=0.8)
    service.apply_trust(new.id, "user_confirmed", actor="alice", note="checked the pipeline")
    service.apply_trust(new.id, "agent_used")
    mobile = service.add("The app uses Swift 6", project="mobile", detection="off").memory
    service.relate(mobile.id, new.id, "RELATED_TO", metadata={"why": "shared CI"})
    return {"old": old.id, "new": new.id, "port": port.id, "other": other.id, "mobile": mobile.id}


def _export(store, embedder, **kw) -> str:
    return "".join(export_lines(store, embedding_model=model_id(embedder), **kw))


def _lines(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines()]


def _into(text: str, store, embedder, **kw):
    return import_file(store, embedder, io.BytesIO(text.encode()), **kw)


@pytest.fixture
def target(tmp_path):
    s = SQLiteStore(tmp_path / "target.db")
    yield s
    s.close()


def test_export_holds_everything_and_imports_back_unchanged(service, embedder, target) -> None:
    ids = _fill(service)
    text = _export(service.store, embedder)
    records = _lines(text)
    assert records[0]["type"] == "header" and records[0]["embedding_model"] == model_id(embedder)
    assert records[-1] == {
        "type": "end",
        "memories": 5,
        "relationships": 3,
        "trust_events": 3,  # two on `new`, `contradicted` on `port`
    }
    report = _into(text, target, embedder)
    assert (report.memories.added, report.relationships.added, report.trust_events) == (5, 3, 3)
    # every vector is the text's own, never the file's (issue 28 item 5); here they agree
    assert (report.reembedded, report.vectors_replaced) == (5, 0)
    # what a user sees on the other side: the old fact hidden, trust and its history kept
    assert target.get_memory(ids["old"]).superseded_by == ids["new"]
    assert (
        target.get_memory(ids["new"]).trust_score
        == service.store.get_memory(ids["new"]).trust_score
    )
    # the history is kept, as what the file says: never as the user's own events
    history = [(e.event, e.actor, e.note, e.delta) for e in target.trust_history(ids["new"])]
    assert history == [
        ("imported", "import", "user_confirmed by alice: checked the pipeline", 0.1),
        ("imported", "import", "agent_used", 0.05),
    ]
    assert target.get_memory(ids["port"]).metadata == {
        "source": {"file": "README.md", "line": 12},
        "n": 1.5,
    }
    assert [r.relationship_type for r in target.edges_of([ids["port"]])] == ["CONTRADICTS"]
    # and the vector search finds the same memory
    vec = embedder.embed_one("which CI service do we use")
    from neuralgentics.memini.store.base import MemoryFilter

    assert target.vector_search(vec, MemoryFilter(project="web"), 1)[0][0] == ids["new"]
    again = _export(target, embedder)
    assert _without_events(again) == _without_events(text)
    # and moving it on changes nothing more: its history is already the imported one
    onward = SQLiteStore(target.path.with_name("onward.db"))
    try:
        assert _into(again, onward, embedder).memories.added == 5
        assert _export(onward, embedder) == again
    finally:
        onward.close()


def _without_events(text: str) -> list[dict]:
    return [{k: v for k, v in r.items() if k != "trust_events"} for r in _lines(text)]


def test_import_twice_changes_nothing(service, embedder) -> None:
    _fill(service)
    text = _export(service.store, embedder)
    before = service.store.counts()
    report = _into(text, service.store, embedder)  # into the very store it came from
    assert (report.memories.added, report.memories.unchanged, report.memories.conflicts) == (
        0,
        5,
        0,
    )
    assert (report.relationships.added, report.relationships.unchanged) == (0, 3)
    assert service.store.counts() == before
    assert _export(service.store, embedder) == text


def test_a_bad_line_is_named_and_nothing_is_written(store, embedder, tmp_path) -> None:
    source = MemoryService(
        SQLiteStore(tmp_path / "src.db"), embedder, Settings(home=tmp_path / "h")
    )
    _fill(source)
    lines = _export(source.store, embedder).splitlines(keepends=True)
    for line_no, broken in (
        (3, '{"type": "memory", "id": "not-a-uuid"}\n'),
        (2, lines[1].replace('"trust_score":', '"trust_score":7,"x":')),
        (4, "{this is not json\n"),
    ):
        bad = lines[: line_no - 1] + [broken] + lines[line_no:]
        with pytest.raises(BadImportFile) as caught:
            _into("".join(bad), store, embedder)
        assert caught.value.problems[0].line == line_no
        assert caught.value.message.startswith(f"line {line_no}: ")
        assert store.counts()["memories"] == 0
    # cut short: no end record, so it is refused whole
    with pytest.raises(BadImportFile, match="cut short"):
        _into("".join(lines[:-2]), store, embedder)
    assert store.counts() == {
        "memories": 0,
        "relationships": 0,
        "trust_events": 0,
        "project_chunks": 0,
    }


def test_a_failure_while_writing_rolls_everything_back(store, embedder, tmp_path) -> None:
    """An edge to a memory neither in the file nor in the store is found in the writing pass,
    after memories were inserted: the transaction takes them back out."""
    source = MemoryService(
        SQLiteStore(tmp_path / "src.db"), embedder, Settings(home=tmp_path / "h")
    )
    ids = _fill(source)
    text = "".join(export_lines(source.store, project="web", embedding_model=model_id(embedder)))
    records = _lines(text)
    edge = dict(next(r for r in records if r["type"] == "relationship"))
    edge.update(id="00000000-0000-4000-8000-000000000001", target_id=ids["mobile"])
    records.insert(-1, edge)
    records[-1]["relationships"] += 1
    with pytest.raises(BadImportFile, match="neither in the file nor in the store") as caught:
        _into("".join(json.dumps(r) + "\n" for r in records), store, embedder)
    assert caught.value.problems[0].line == len(records) - 1
    assert store.counts()["memories"] == 0 and store.counts()["trust_events"] == 0


def test_conflicts_are_reported_never_overwritten(service, embedder, tmp_path) -> None:
    ids = _fill(service)
    text = _export(service.store, embedder)
    service.apply_trust(ids["port"], "user_rejected")  # the store moved on since the export
    service.update(ids["mobile"], content="The app uses Swift 6.1")
    other = MemoryService(SQLiteStore(tmp_path / "o.db"), embedder, Settings(home=tmp_path / "h"))
    fresh = other.add("A memory only this store has", project="web").memory
    extra = _export(other.store, embedder).splitlines(keepends=True)[1]
    records = text.splitlines(keepends=True)
    records.insert(1, extra)
    end = json.loads(records[-1])
    end["memories"] += 1
    records[-1] = json.dumps(end) + "\n"
    before = service.store.counts()
    with pytest.raises(ImportConflicts) as caught:
        _into("".join(records), service.store, embedder)
    conflicted = {c.id for c in caught.value.report.conflicts}
    assert {ids["port"], ids["mobile"]} <= conflicted
    assert service.store.counts() == before and service.store.get_memory(fresh.id) is None
    report = _into("".join(records), service.store, embedder, on_conflict="skip")
    assert report.memories.added == 1 and report.memories.conflicts == 2
    assert service.store.get_memory(ids["mobile"]).content == "The app uses Swift 6.1"
    assert service.store.get_memory(fresh.id).content == "A memory only this store has"
    # the edge from the conflicted `mobile` is reported, not made again or changed
    assert report.relationships.conflicts >= 1


def test_no_embeddings_or_another_model_re_embeds(service, embedder, target) -> None:
    ids = _fill(service)
    text = _export(service.store, embedder, with_embeddings=False)
    assert all("embedding" not in r for r in _lines(text) if r["type"] == "memory")
    report = _into(text, target, embedder)
    assert report.reembedded == 5
    assert target.get_embedding(ids["new"]) is not None
    other_model = text.replace('"embedding_model":null', '"embedding_model":"some/other-model"', 1)
    assert _into(other_model, target, embedder).memories.unchanged == 5


def test_sqlite_to_postgres_to_sqlite_gives_the_same_export(embedder, pg_server, tmp_path) -> None:
    from neuralgentics.memini.store.postgres import PostgresStore

    first = MemoryService(SQLiteStore(tmp_path / "a.db"), embedder, Settings(home=tmp_path / "h"))
    _fill(first)
    text = _export(first.store, embedder)
    url = fresh_database(pg_server, "port")
    pg = PostgresStore(url)
    try:
        assert _into(text, pg, embedder).memories.added == 5
        from_pg = _export(pg, embedder)
    finally:
        pg.close()
        drop_database(url)
    # the first hop records the history as imported; from there on the bytes stay the same
    assert _without_events(from_pg) == _without_events(text)
    back = SQLiteStore(tmp_path / "back.db")
    _into(from_pg, back, embedder)
    assert _export(back, embedder) == from_pg
    back.close()


def test_http_routes_behind_the_credential(store, embedder, tmp_path) -> None:
    settings = Settings(home=tmp_path / "home", token="p0rt-t0ken")
    app = create_app(settings, store=store, embedder=embedder)
    auth = {"Authorization": "Bearer p0rt-t0ken"}
    with TestClient(app) as c:
        assert c.get("/memory/export").status_code == 401
        assert c.post("/memory/import", content=b"{}").status_code == 401
        added = c.post(
            "/memory/add", json={"content": "Docs live in docs/", "project": "p"}, headers=auth
        )
        assert added.status_code == 201
        r = c.get("/memory/export", params={"project": "p"}, headers=auth)
        assert r.status_code == 200 and r.headers["content-type"].startswith("application/x-ndjson")
        text = r.text
        assert _lines(text)[-1]["memories"] == 1
        ndjson = {**auth, "content-type": "application/x-ndjson"}
        again = c.post("/memory/import", content=text.encode(), headers=ndjson)
        assert again.status_code == 200 and again.json()["memories"]["unchanged"] == 1
        bad = c.post("/memory/import", content=text.encode()[:-5], headers=ndjson)
        assert bad.status_code == 422
        assert bad.json()["error"]["line"] == 3 and bad.json()["error"]["problems"]
        wrong = c.post(
            "/memory/import", params={"on_conflict": "merge"}, content=text.encode(), headers=ndjson
        )
        assert wrong.status_code == 422


def test_cli_export_and_import_local(tmp_path, embedder) -> None:
    env = {"NEURALGENTICS_CONFIG_DIR": str(tmp_path / "config")}
    one = {**env, "NEURALGENTICS_HOME": str(tmp_path / "one")}
    two = {**env, "NEURALGENTICS_HOME": str(tmp_path / "two")}
    assert (
        run(["memory", "add", "Releases are cut on Fridays", "-p", "x", "--local"], one).returncode
        == 0
    )
    out = tmp_path / "mem.jsonl"
    r = run(["memory", "export", "-o", str(out), "--local"], one)
    assert r.returncode == 0, r.stderr
    assert "exported 1 memories" in r.stderr and not (tmp_path / "mem.jsonl.partial").exists()
    r = run(["memory", "import", str(out), "--local"], two)
    assert r.returncode == 0, r.stderr
    assert "1 added" in r.stdout
    r = run(["memory", "import", str(out), "--local"], two)
    assert "0 added, 1 unchanged" in r.stdout
    Path(tmp_path / "bad.jsonl").write_text(
        out.read_text().replace('"type":"memory"', '"type":"memo"')
    )
    r = run(["memory", "import", str(tmp_path / "bad.jsonl"), "--local"], two)
    assert r.returncode == 2 and "line 2" in r.stderr


def test_the_import_route_alone_takes_bodies_over_4_mib(tmp_path, embedder) -> None:
    store = SQLiteStore(tmp_path / "m.db")
    settings = Settings(home=tmp_path / "home", token="t")
    big = b"x" * (5 << 20) + b"\n"
    headers = {"Authorization": "Bearer t", "content-type": "application/x-ndjson"}
    with TestClient(create_app(settings, store=store, embedder=embedder)) as c:
        r = c.post("/memory/import", content=big, headers=headers)
        assert r.status_code == 422 and r.json()["error"]["line"] == 1  # read, not refused
        r = c.post(
            "/memory/add", content=big, headers={**headers, "content-type": "application/json"}
        )
        assert r.status_code == 413
    assert store.counts()["memories"] == 0
    store.close()


def test_small_pages_and_chunks_and_repeated_content(
    service, embedder, target, monkeypatch
) -> None:
    """Export reads in pages and import writes in chunks: their boundaries change nothing;
    the same content twice in one project of a file is a bad line."""
    from neuralgentics.memini.portability import importer
    from neuralgentics.memini.store import transfer

    monkeypatch.setattr(importer, "CHUNK", 2)
    ids = _fill(service)
    text = _export(service.store, embedder)
    monkeypatch.setattr(transfer, "PAGE", 2)  # export pages of 2 rows: the same file
    assert _export(service.store, embedder) == text
    assert _into(text, target, embedder).memories.added == 5
    assert _into(text, target, embedder).memories.unchanged == 5
    assert target.get_memory(ids["old"]).superseded_by == ids["new"]
    records = _lines(text)
    twin = dict(records[1], id="00000000-0000-4000-8000-0000000000aa", trust_events=[])
    records.insert(2, twin)
    records[-1]["memories"] += 1
    with pytest.raises(BadImportFile, match="same content and project as line 2") as caught:
        _into("".join(json.dumps(r) + "\n" for r in records), service.store, embedder)
    assert caught.value.problems[0].line == 3


def test_cli_export_to_a_file_leaves_nothing_when_it_fails(tmp_path) -> None:
    env = dict(
        NEURALGENTICS_HOME=str(tmp_path / "home"),
        NEURALGENTICS_CONFIG_DIR=str(tmp_path / "config"),
        NEURALGENTICS_TOKEN="t",
        NEURALGENTICS_SERVICE_URL="http://127.0.0.1:9",  # nothing listens there
    )
    out = tmp_path / "mem.jsonl"
    r = run(["memory", "export", "-o", str(out)], env)
    assert r.returncode == 3 and "not reachable" in r.stderr
    assert list(tmp_path.glob("mem.jsonl*")) == []


def _synthetic_export(n: int, model: str) -> str:
    """An export file of n memories written with the format's own functions (vectors random)."""
    from datetime import UTC, datetime, timedelta

    import numpy as np

    from neuralgentics.embeddings import content_hash
    from neuralgentics.memini.portability import format as fmt
    from neuralgentics.memini.store.base import Memory

    rng = np.random.default_rng(1)
    start = datetime(2026, 1, 1, tzinfo=UTC)
    lines = [fmt.header(model, None)]
    for i in range(n):
        v = rng.standard_normal(384).astype(np.float32)
        v /= np.linalg.norm(v)
        text = f"fact {i}: service s{i} runs on port {10000 + i}"
        at = start + timedelta(seconds=i)
        m = Memory(
            f"00000000-0000-4000-8000-{i:012d}",
            text,
            0.5,
            None,
            "big",
            [],
            {},
            content_hash(text),
            at,
            at,
        )
        lines.append(fmt.memory_record(m, [], v))
    lines.append(fmt.end_record(n, 0, 0))
    return "".join(fmt.dumps(line) + "\n" for line in lines)


def test_cli_import_and_export_through_the_served_service(tmp_path) -> None:
    """The real `serve` with its token: a 5 MB file (over the other routes' 4 MiB limit) is
    streamed in by `memory import`, and `memory export` gives back the same bytes."""
    import time

    import httpx

    from neuralgentics.embeddings.model import MiniLMEmbedder

    text = _synthetic_export(2_500, MiniLMEmbedder().vectors_id)
    assert len(text.encode()) > 5 << 20
    (tmp_path / "in.jsonl").write_text(text)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    ours = dict(
        NEURALGENTICS_HOME=str(tmp_path / "home"),
        NEURALGENTICS_CONFIG_DIR=str(tmp_path / "config"),
        NEURALGENTICS_PORT=str(port),
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("NEURALGENTICS_")}
    # the service is a process of its own; the commands run in-process against it
    proc = subprocess.Popen(
        [sys.executable, "-m", "neuralgentics.cli", "serve"],
        env={**env, **ours},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "memini-core did not come up"
            time.sleep(0.2)
        r = run(["memory", "import", str(tmp_path / "in.jsonl")], ours)
        assert r.returncode == 0, r.stderr
        assert "2500 added" in r.stdout
        # the synthetic file's vectors are random: each replaced by its text's own
        assert "2500 vectors in the file did not match their text" in r.stdout
        r = run(["memory", "export", "-o", str(tmp_path / "out.jsonl")], ours)
        assert r.returncode == 0, r.stderr
        out = (tmp_path / "out.jsonl").read_text()

        def no_vectors(t: str) -> list[dict]:
            return [{k: v for k, v in x.items() if k != "embedding"} for x in _lines(t)]

        assert no_vectors(out) == no_vectors(text) and out != text
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_a_large_import_into_postgres_rebuilds_the_vector_index(embedder, pg_server) -> None:
    """1,000 memories into an empty PostgreSQL store: the HNSW index is dropped for the import
    and built again in the same transaction; a failing import leaves it as it was."""
    import numpy as np

    from neuralgentics.memini.portability import format as fmt
    from neuralgentics.memini.store.base import MemoryFilter
    from neuralgentics.memini.store.postgres import PostgresStore

    text = _synthetic_export(1_000, model_id(embedder))
    url = fresh_database(pg_server, "bulk")
    pg = PostgresStore(url)

    def index_def() -> str | None:
        row = pg.db.run(
            lambda c: c.execute(
                "SELECT indexdef FROM pg_indexes WHERE indexname = 'memories_embedding_hnsw'"
            ).fetchone(),
            tx=False,
        )
        return row[0] if row else None

    try:
        before = index_def()
        assert before is not None and "hnsw" in before
        cut = text.splitlines(keepends=True)
        # fails in the writing pass, after the index was dropped and the memories inserted
        edge = {
            "type": "relationship",
            "id": "00000000-0000-4000-9000-000000000001",
            "source_id": json.loads(cut[1])["id"],
            "target_id": "00000000-0000-4000-9000-000000000002",
            "relationship_type": "RELATED_TO",
            "confidence": 1.0,
            "created_at": "2026-01-02T00:00:00.000000+00:00",
            "metadata": {},
        }
        end = {**json.loads(cut[-1]), "relationships": 1}
        broken = "".join(cut[:-1]) + json.dumps(edge) + "\n" + json.dumps(end) + "\n"
        with pytest.raises(BadImportFile, match="neither in the file nor in the store"):
            _into(broken, pg, embedder)
        assert index_def() == before and pg.counts()["memories"] == 0
        assert _into(text, pg, embedder).memories.added == 1_000
        assert index_def() == before
        line = json.loads(cut[500])
        vector = embedder.embed_one(line["content"])  # stored from the text, not the file
        assert not np.allclose(vector, fmt.decode_vector(line["embedding"]), atol=1e-2)
        hits = pg.vector_search(vector, MemoryFilter(), 1)
        assert hits[0][0] == line["id"] and np.isclose(hits[0][1], 1.0, atol=1e-4)
        assert pg.counts()["memories"] == 1_000
    finally:
        pg.close()
        drop_database(url)


def test_export_takes_the_scope_filter_of_the_query(client) -> None:
    """`--scope` / `agent` / `session` choose what is exported as a query's scope arguments
    choose what it searches (docs/memini.md, "Scopes")."""

    def add(content: str, **where) -> str:
        r = client.post("/memory/add", json={"content": content, "detection": "off", **where})
        assert r.status_code == 201, r.text
        return r.json()["memory"]["id"]

    web = add("The web app is deployed with Fly.io", project="web")
    api = add("The API is written in Go", project="api")
    me = add("I prefer tabs over spaces", scope="user")
    coder = add("Run the linter before handing a task back", scope="agent", agent="coder")
    s1 = add("This session is about the login bug", scope="session", session="s1", project="web")

    def exported(**params) -> set[str]:
        r = client.get("/memory/export", params=params)
        assert r.status_code == 200, r.text
        return {rec["id"] for rec in _lines(r.text) if rec["type"] == "memory"}

    assert exported() == {web, api, me, coder, s1}
    assert exported(project="web") == {web}  # as before scopes: the project's own memories
    assert exported(scope="user") == {me}
    assert exported(scope="agent", agent="coder") == {coder}
    assert exported(scope=["session", "user"], session="s1") == {s1, me}
    # the query's precedence set: this session, this project, this agent, the user
    assert exported(project="web", session="s1", agent="coder") == {s1, web, coder, me}
    for bad in ({"scope": "team"}, {"scope": "agent"}, {"scope": "session", "project": "web"}):
        r = client.get("/memory/export", params=bad)
        assert r.status_code == 422, (bad, r.text)


def test_cli_export_by_scope(tmp_path, embedder) -> None:
    env = {
        "NEURALGENTICS_CONFIG_DIR": str(tmp_path / "config"),
        "NEURALGENTICS_HOME": str(tmp_path / "home"),
    }
    for args in (
        ["Releases are cut on Fridays", "-p", "x"],
        ["I write commit messages in English", "--scope", "user"],
    ):
        assert run(["memory", "add", *args, "--local"], env).returncode == 0
    out = tmp_path / "mine.jsonl"
    r = run(["memory", "export", "--scope", "user", "-o", str(out), "--local"], env)
    assert r.returncode == 0, r.stderr
    assert "exported 1 memories" in r.stderr
    assert "commit messages" in out.read_text() and "Fridays" not in out.read_text()
    r = run(["memory", "export", "--scope", "agent", "--local"], env)
    assert r.returncode == 2 and "agent" in r.stderr
