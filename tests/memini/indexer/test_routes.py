"""The HTTP routes, mounted on the real memini-core app over its own store."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from neuralgentics.app.core import create_app
from neuralgentics.config import get_settings


@pytest.fixture
def client():
    app = create_app(get_settings())  # memini-core mounts create_router() itself
    with TestClient(app) as c:
        yield c


def wait_done(client: TestClient, job_id: str, timeout: float = 60) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job = client.get(f"/project/index/{job_id}").json()
        if job["status"] in ("done", "failed"):
            return job
        time.sleep(0.1)
    raise AssertionError(f"job {job_id} still {job['status']} after {timeout} s")


def test_index_job_then_search(client: TestClient, repo: Path) -> None:
    started = client.get("/project/index", params={"path": str(repo)})
    assert started.status_code in (200, 202)
    job = started.json()
    assert job["project"] == str(repo.resolve()) and job["id"]
    done = wait_done(client, job["id"])
    assert done["status"] == "done", done
    assert done["report"]["files"] == 9 and done["progress"]["phase"] == "done"

    again = client.get("/project/index", params={"path": str(repo)}).json()
    assert again["id"] != job["id"]
    assert wait_done(client, again["id"])["report"]["embedded"] == 0

    found = client.post(
        "/project/search",
        json={"query": "charge a credit card", "top_k": 3, "project": str(repo / "billing")},
    )
    assert found.status_code == 200, found.text
    body = found.json()
    hit = body["hits"][0]
    assert body["project"] == str(repo.resolve())
    assert (hit["file_path"], hit["symbol"], hit["language"]) == (
        "billing/invoice.py",
        "PaymentGateway",
        "python",
    )
    assert (hit["start_line"], hit["end_line"]) == (12, 19)
    assert hit["score"] > 0 and "meaning #" in hit["why"]
    listed = client.get("/project/list").json()
    assert [p["root"] for p in listed] == [str(repo.resolve())]
    # with one project indexed, it need not be named
    assert client.post("/project/search", json={"query": "vowels"}).json()["hits"]


def test_bad_requests_name_the_problem(client: TestClient, tmp_path: Path) -> None:
    missing = client.get("/project/index", params={"path": str(tmp_path / "nope")})
    assert missing.status_code == 422
    assert missing.json()["error"]["field"] == "path"
    assert "does not exist" in missing.json()["error"]["message"]
    assert client.get("/project/index").status_code == 422
    unknown = client.get("/project/index/0123")
    assert unknown.status_code == 404 and unknown.json()["error"]["field"] == "job"
    nothing = client.post("/project/search", json={"query": "x"})
    assert (
        nothing.status_code == 404 and "no project is indexed" in nothing.json()["error"]["message"]
    )
    empty = client.post("/project/search", json={"query": ""})
    assert empty.status_code == 422 and empty.json()["error"]["field"] == "query"
    too_many = client.post("/project/search", json={"query": "x", "top_k": 1000})
    assert too_many.status_code == 422 and too_many.json()["error"]["field"] == "top_k"
    elsewhere = client.post("/project/search", json={"query": "x", "project": str(tmp_path)})
    assert elsewhere.status_code == 404 and elsewhere.json()["error"]["field"] == "project"


def test_a_path_naming_an_unknown_users_home_is_bad_input(client):
    r = client.post(
        "/project/search", json={"query": "anything", "project": "~no_such_user_here/x"}
    )
    assert r.status_code in (404, 422)
    assert "home directory" in r.json()["error"]["message"]
