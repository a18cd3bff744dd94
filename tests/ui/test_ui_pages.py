"""The dashboard in a real browser against real services, with data made through the API."""

from __future__ import annotations

import time
import uuid
from pathlib import Path

import pytest
from ui_stack import Stack


def add(stack: Stack, content: str, **extra) -> dict:
    with stack.api() as c:
        r = c.post("/memory/add", json={"content": content, **extra})
        assert r.status_code in (200, 201), r.text
        return r.json()["memory"]


def relate(stack: Stack, source: str, target: str, kind: str, confidence: float = 1.0) -> dict:
    with stack.api() as c:
        r = c.post(
            "/memory/relationship",
            json={
                "source_id": source,
                "target_id": target,
                "relationship_type": kind,
                "confidence": confidence,
            },
        )
        assert r.status_code == 201, r.text
        return r.json()


def call_tool(stack: Stack, tool: str, arguments: dict, role: str | None = None) -> int:
    headers = {"X-Neuralgentics-Role": role} if role else {}
    with stack.broker_api() as b:
        return b.post(
            "/call", json={"server": "time", "tool": tool, "arguments": arguments}, headers=headers
        ).status_code


def index_project(stack: Stack, root: Path) -> dict:
    with stack.api() as c:
        job = c.get("/project/index", params={"path": str(root)}).json()
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            job = c.get(f"/project/index/{job['id']}").json()
            if job["status"] in ("done", "failed"):
                break
            time.sleep(0.2)
    assert job["status"] == "done", job
    return job


@pytest.fixture(scope="module")
def seeded(stack: Stack, tmp_path_factory: pytest.TempPathFactory) -> dict:
    """A little of everything each page shows."""
    ci = add(
        stack,
        "The CI pipeline runs pytest on two cores; keep the suite under three minutes.",
        project="/repo/app",
        source_type="user",
        tags=["ci"],
    )
    ruff = add(
        stack,
        "Use ruff for linting and formatting Python code.",
        project="/repo/app",
        source_type="agent",
        tags=["style"],
    )
    flake = add(
        stack, "Lint Python with flake8 and black.", project="/repo/app", source_type="agent"
    )
    relate(stack, ruff["id"], flake["id"], "SUPERSEDES")
    relate(stack, ci["id"], ruff["id"], "RELATED_TO", 0.7)
    with stack.api() as c:
        for event in ("agent_used", "user_confirmed", "user_rejected"):
            assert (
                c.post(
                    f"/memory/{ci['id']}/trust", json={"event": event, "actor": "coder"}
                ).status_code
                == 200
            )
    assert call_tool(stack, "get_current_time", {"timezone": "Europe/Paris"}) == 200
    assert (
        call_tool(
            stack,
            "convert_time",
            {"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"},
            role="reviewer",
        )
        == 403
    )
    root = tmp_path_factory.mktemp("proj")
    (root / ".gitignore").write_text("build/\n")
    (root / "build").mkdir()
    (root / "build" / "out.py").write_text("x = 1\n")
    (root / "billing.py").write_text(
        'def compute_invoice_total(lines):\n    """Sum of the invoice lines with tax."""\n'
        "    return sum(l.price * l.qty for l in lines) * 1.2\n"
    )
    (root / "README.md").write_text("# Billing\n\nInvoices and their totals.\n")
    (root / "logo.bin").write_bytes(bytes(range(256)) * 8)
    index_project(stack, root)
    return {"ci": ci, "ruff": ruff, "flake": flake, "root": str(root)}


def test_every_page_loads_without_console_errors(stack: Stack, seeded: dict) -> None:
    ci = seeded["ci"]["id"]
    pages = [
        ("overview", "#/overview", "#recent-calls"),
        ("memories", "#/memories", "#results"),
        ("memory", f"#/memory/{ci}", "#trust-history svg"),
        ("graph", f"#/graph/{ci}?depth=2", ".graphwrap svg .node"),
        ("broker", "#/broker", "#catalog-tokens"),
        ("project", "#/project", "#project-files"),
    ]
    steps = [
        {
            "name": n,
            "goto": f"/ui/{h}",
            "wait": f"main[data-ready={n}] {sel}",
            "screenshot": f"{n}.png",
            "timeout": 45000,
            "eval": "document.querySelector('main').innerText",
        }
        for n, h, sel in pages
    ]
    result = stack.browse(steps, name="pages")
    for name, *_ in pages:
        assert result[name]["errors"] == [], f"{name}: {result[name]['errors']}"
        assert Path(result[name]["screenshot"]).stat().st_size > 10_000
    overview = result["overview"]["value"]
    assert "sqlite" in overview and "all-MiniLM-L6-v2" in overview
    assert "not mounted" not in overview and "not reachable" not in overview
    assert "time/get_current_time" in overview  # the recent broker call
    assert "warm" in overview  # the time server, started by that call
    assert "Lint Python" not in result["memories"]["value"]  # superseded: left out of the list
    detail = result["memory"]["value"]
    assert "user_rejected" in detail and "RELATED_TO" in detail
    assert "0.50" in detail  # trust after +0.05 +0.10 -0.15


def test_memory_page_says_what_hid_it_why_and_how_to_undo(stack: Stack, seeded: dict) -> None:
    """Issue 27 item 5: the dashboard's memory view shows the detector's decision."""
    old = add(stack, "The CI pipeline runs on Jenkins.", project="/repo/ci")
    with stack.api() as c:
        r = c.post(
            "/memory/add",
            json={
                "content": "CI moved to GitHub Actions; the Jenkins box was retired.",
                "project": "/repo/ci",
            },
        )
    [finding] = r.json()["superseded"]
    assert finding["id"] == old["id"]
    steps = [
        {
            "name": "hidden",
            "goto": f"/ui/#/memory/{old['id']}",
            "wait": "main[data-ready=memory] #decisions",
            "eval": "[document.querySelector('#hidden-notice').innerText,"
            " document.querySelector('#decisions').innerText]",
        }
    ]
    result = stack.browse(steps, name="decisions")
    notice, decisions = result["hidden"]["value"]
    assert result["hidden"]["errors"] == []
    assert finding["reason"] in notice and f"neuralgentics memory restore {old['id']}" in notice
    assert "hidden by" in decisions and "GitHub Actions" in decisions
    assert "auto" in decisions and finding["reason"] in decisions


def test_search_returns_the_memory_just_added_and_says_why(stack: Stack, seeded: dict) -> None:
    word = f"zebrafish{uuid.uuid4().hex[:6]}"
    new = add(
        stack, f"The {word} aquarium pump is restarted every night by cron.", project="/repo/app"
    )
    steps = [
        {"name": "open", "goto": "/ui/#/memories", "wait": "main[data-ready=memories] #results"},
        {
            "name": "search",
            "fill": ["input[name=q]", f"{word} pump"],
            "press": ["input[name=q]", "Enter"],
            "wait": "main[data-ready=memories] #results tr.hit",
            "screenshot": "search.png",
            "eval": "[...document.querySelectorAll('#results tr.hit')].map(r => ({id: r.dataset.id, text: r.innerText}))",
        },
    ]
    result = stack.browse(steps, name="search")
    hits = result["search"]["value"]
    assert hits[0]["id"] == new["id"]
    assert "keyword #1" in hits[0]["text"] and "vector #1" in hits[0]["text"]
    assert result["search"]["errors"] == []


def test_memory_filters_narrow_the_list(stack: Stack, seeded: dict) -> None:
    add(stack, "Deploys go out on Tuesdays.", project="/repo/other", source_type="user")
    markup = '<img src=x onerror="window.__pwned=true"><b class="injected">bold</b>'
    add(stack, markup, project="/repo/markup")
    steps = [
        {
            "name": "filtered",
            "goto": "/ui/#/memories?project=%2Frepo%2Fother&source_type=user",
            "wait": "main[data-ready=memories] #results",
            "eval": "[...document.querySelectorAll('#results tbody tr')].map(r => r.innerText)",
        },
        {
            "name": "trusted",
            "goto": "/ui/#/memories?min_trust=0.55&project=%2Frepo%2Fapp",
            "wait": "main[data-ready=memories] #results",
            "eval": "document.querySelector('#results').innerText",
        },
        {
            "name": "markup",
            "goto": "/ui/#/memories?project=%2Frepo%2Fmarkup",
            "wait": "main[data-ready=memories] #results",
            "eval": "({text: document.querySelector('#results').innerText, "
            "injected: document.querySelectorAll('#results img, #results b.injected').length, "
            "flag: window.__pwned === true})",
        },
    ]
    result = stack.browse(steps, name="filters")
    rows = result["filtered"]["value"]
    assert len(rows) == 1 and "Deploys go out on Tuesdays." in rows[0]
    assert "No memories match" in result["trusted"]["value"]  # nothing in /repo/app is above 0.55
    # markup in a memory is shown as text, never run
    shown = result["markup"]["value"]
    assert 'onerror="window.__pwned=true"' in shown["text"]
    assert shown["injected"] == 0 and shown["flag"] is False


def test_graph_shows_the_edge_just_created_and_pans(stack: Stack, seeded: dict) -> None:
    a = add(stack, "Releases are tagged vMAJOR.MINOR.PATCH.")
    b = add(stack, "Tags are signed with the release key.")
    old = add(stack, "Releases are tagged by date.")
    edge = relate(stack, a["id"], b["id"], "DERIVED_FROM")
    relate(stack, a["id"], old["id"], "SUPERSEDES")
    far = add(stack, "The release key lives in the team vault.")
    relate(stack, b["id"], far["id"], "RELATED_TO")
    edges_js = (
        "[...document.querySelectorAll('.graphwrap line.edge')].map(e => ({id: e.dataset.edgeId, "
        "type: e.dataset.type, color: e.getAttribute('stroke')}))"
    )
    nodes_js = (
        "[...document.querySelectorAll('.graphwrap .node')].map(n => ({id: n.dataset.id, "
        "cls: n.getAttribute('class')}))"
    )
    transform_js = "document.querySelector('.graphwrap g.stage').getAttribute('transform')"
    steps = [
        {
            "name": "depth1",
            "goto": f"/ui/#/graph/{a['id']}?depth=1",
            "wait": "main[data-ready=graph] .graphwrap line.edge",
            "eval": f"({{edges: {edges_js}, nodes: {nodes_js}}})",
        },
        {
            "name": "depth2",
            "select": ["select[name=depth]", "2"],
            "wait": "main[data-ready=graph] .graphwrap .node",
            "eval": f"({{nodes: {nodes_js}, url: location.hash, transform: {transform_js}}})",
            "screenshot": "graph.png",
        },
        {"name": "pan", "drag": [".graphwrap svg", 120, -60], "eval": transform_js},
        {
            "name": "only-derived",
            "goto": f"/ui/#/graph/{a['id']}?depth=2&types=DERIVED_FROM",
            "wait": "main[data-ready=graph] .graphwrap line.edge",
            "eval": f"({{edges: {edges_js}, nodes: {nodes_js}, boxes: [...document.querySelectorAll('.type-filter input:checked')].map(b => b.value)}})",
        },
        {
            "name": "back",
            "goto": f"/ui/#/graph/{a['id']}?depth=2",
            "wait": "main[data-ready=graph] .graphwrap .node",
        },
        {
            "name": "before-move",
            "eval": f"document.querySelector(\".graphwrap .node[data-id='{far['id']}']\").getAttribute('transform')",
        },
        {
            "name": "move-node",
            "drag": [f".graphwrap .node[data-id='{far['id']}'] circle", 0, 90, "centre"],
            "eval": f"({{node: document.querySelector(\".graphwrap .node[data-id='{far['id']}']\").getAttribute('transform'), "
            f"edge: document.querySelector(\".graphwrap line.edge[data-target='{far['id']}']\").getAttribute('y2')}})",
        },
        {
            "name": "click",
            "click": f".graphwrap .node[data-id='{b['id']}'] circle",
            "wait": f".graphwrap .node.selected[data-id='{b['id']}']",
            "eval": "document.querySelector('#graph-side').innerText",
        },
    ]
    result = stack.browse(steps, name="graph")
    edges = {e["id"]: e for e in result["depth1"]["value"]["edges"]}
    assert edges[edge["id"]]["type"] == "DERIVED_FROM"
    assert edges[edge["id"]]["color"] == "#2f9e44"
    assert {e["type"] for e in edges.values()} == {"DERIVED_FROM", "SUPERSEDES"}
    nodes = {n["id"]: n["cls"] for n in result["depth1"]["value"]["nodes"]}
    assert set(nodes) == {a["id"], b["id"], old["id"]}  # depth 1 does not reach the vault
    assert "superseded" in nodes[old["id"]] and "superseded" not in nodes[b["id"]]
    assert "root" in nodes[a["id"]]
    deeper = {n["id"] for n in result["depth2"]["value"]["nodes"]}
    assert far["id"] in deeper and "depth=2" in result["depth2"]["value"]["url"]
    # dragging the background moved the view
    before, after = result["depth2"]["value"]["transform"], result["pan"]["value"]
    assert before.startswith("translate(") and after.startswith("translate(") and after != before
    # the type filter walks DERIVED_FROM edges only: the superseded memory and the vault drop out
    only = result["only-derived"]["value"]
    assert {e["type"] for e in only["edges"]} == {"DERIVED_FROM"}
    assert {n["id"] for n in only["nodes"]} == {a["id"], b["id"]}
    assert only["boxes"] == ["DERIVED_FROM"]
    # dragging a memory moves it and the edge into it follows
    moved = result["move-node"]["value"]
    assert moved["node"].startswith("translate(")
    node_y = float(moved["node"].split(",")[1].rstrip(")"))
    assert node_y > float(result["before-move"]["value"].split(",")[1].rstrip(")")) + 10
    assert abs(float(moved["edge"]) - node_y) < 20  # the arrow ends at the moved node's rim
    # clicking a memory shows it beside the graph, with a way to re-centre there
    assert "Tags are signed with the release key." in result["click"]["value"]
    assert "Centre the graph here" in result["click"]["value"]
    assert all(not r["errors"] for r in result.values()), {
        k: r["errors"] for k, r in result.items()
    }


def test_audit_table_shows_the_call_just_made(stack: Stack, seeded: dict) -> None:
    assert call_tool(stack, "get_current_time", {"timezone": "Asia/Kathmandu"}) == 200
    rows_js = (
        "[...document.querySelectorAll('#audit tr.audit-row')].map(r => ({tool: r.dataset.tool, "
        "outcome: r.dataset.outcome, text: r.innerText}))"
    )
    hist_js = "[...document.querySelectorAll('.latency-histogram g.bin')].reduce((s, g) => s + Number(g.dataset.count), 0)"
    steps = [
        {
            "name": "audit",
            "goto": "/ui/#/broker",
            "wait": "main[data-ready=broker] #audit tr.audit-row",
            "eval": f"({{rows: {rows_js}, binned: {hist_js}}})",
            "screenshot": "broker.png",
        },
        {
            "name": "denied",
            "select": ["select[name=outcome]", "denied"],
            "click": "#audit button[type=submit]",
            "wait": "main[data-ready=broker] #audit tr.audit-row[data-outcome=denied]",
            "eval": f"({{rows: {rows_js}, binned: {hist_js}}})",
        },
    ]
    result = stack.browse(steps, name="audit")
    rows = result["audit"]["value"]["rows"]
    assert rows[0]["tool"] == "time/get_current_time" and rows[0]["outcome"] == "ok"
    assert "Asia/Kathmandu" in rows[0]["text"]
    assert result["audit"]["value"]["binned"] == len(rows)  # every call is in the histogram
    denied = result["denied"]["value"]["rows"]
    assert denied and all(r["outcome"] == "denied" for r in denied)
    assert "reviewer" in denied[0]["text"] and "time/convert_time" == denied[0]["tool"]
    assert result["denied"]["value"]["binned"] == len(denied)


def test_catalog_per_role_with_token_counts(stack: Stack, seeded: dict) -> None:
    js = (
        "({tokens: Number(document.querySelector('#catalog-tokens [data-tokens]').dataset.tokens), "
        "text: document.querySelector('#catalog').innerText})"
    )
    steps = [
        {
            "name": "coder",
            "goto": "/ui/#/broker",
            "wait": "#catalog-tokens",
            "eval": js,
            "timeout": 45000,
        },
        {
            "name": "reviewer",
            "goto": "/ui/#/broker?role=reviewer",
            "wait": "#catalog-tokens",
            "eval": js,
        },
    ]
    result = stack.browse(steps, name="catalog")
    coder, reviewer = result["coder"]["value"], result["reviewer"]["value"]
    assert "convert_time" in coder["text"] and "get_current_time" in coder["text"]
    assert "convert_time" not in reviewer["text"]
    assert 0 < reviewer["tokens"] <= coder["tokens"]
    assert "tokens as full schemas" in coder["text"]


def test_intent_box_ranks_the_tools(stack: Stack, seeded: dict) -> None:
    steps = [
        {"name": "open", "goto": "/ui/#/broker", "wait": "#intent input[name=intent]"},
        {
            "name": "match",
            "fill": ["input[name=intent]", "convert 3pm in London to Tokyo time"],
            "click": "#intent button[type=submit]",
            "wait": "#intent-results tr.candidate",
            "eval": "[...document.querySelectorAll('#intent-results tr.candidate')].map(r => r.dataset.tool)",
            "screenshot": "intent.png",
        },
    ]
    result = stack.browse(steps, name="intent")
    assert result["match"]["value"][0] == "time/convert_time"
    assert result["match"]["errors"] == []


def test_project_index_page(stack: Stack, seeded: dict) -> None:
    root = seeded["root"]
    from urllib.parse import quote

    # a file written after the last run: listed as not indexed yet, then indexed by the button
    (Path(root) / "shipping.py").write_text(
        "def shipping_cost(weight_kg):\n    return 4.5 + weight_kg * 1.1\n"
    )

    q = quote(root, safe="")
    steps = [
        {
            "name": "files",
            "goto": f"/ui/#/project?root={q}",
            "wait": "main[data-ready=project] #project-files",
            "eval": "({projects: document.querySelector('#projects').innerText, files: document.querySelector('#project-files').innerText})",
        },
        {
            "name": "skipped",
            "goto": f"/ui/#/project?root={q}&tab=skipped",
            "wait": "main[data-ready=project] #project-skipped",
            "eval": "document.querySelector('#project-skipped').innerText",
            "screenshot": "skipped.png",
        },
        {
            "name": "search",
            "goto": f"/ui/#/project?root={q}&tab=search&q=invoice%20total%20with%20tax",
            "wait": "#project-hits .hit",
            "eval": "[...document.querySelectorAll('#project-hits .hit')].map(h => h.innerText)",
            "screenshot": "project-search.png",
        },
        {
            # the login's session is read-only: the button says how to get one that may index
            "name": "read-only",
            "goto": f"/ui/#/project?root={q}",
            "wait": "main[data-ready=project] #project-files",
            "click": "#reindex",
        },
        {
            "name": "refused",
            "wait": "#reindex-status.error",
            "eval": "document.querySelector('#reindex-status').innerText",
        },
        {
            "name": "reindex",
            "goto": f"/ui?token={stack.token}&scope=write#/project?root={q}",
            "wait": "main[data-ready=project] #project-files",
        },
        {
            "name": "reindexed",
            "click": "#reindex",
            "wait": "#project-files td:has-text('shipping.py')",
            "eval": "document.querySelector('#project-files').innerText",
            "timeout": 60000,
        },
    ]
    result = stack.browse(steps, name="project")
    projects = result["files"]["value"]["projects"]
    assert root in projects and "ready" in projects
    files = result["files"]["value"]["files"]
    assert "billing.py" in files and "README.md" in files and "logo.bin" not in files
    skipped = result["skipped"]["value"]
    assert "build/" in skipped and ".gitignore" in skipped  # ignored by the project's .gitignore
    assert "logo.bin" in skipped
    assert "shipping.py" not in files
    assert "shipping.py\tnot indexed yet (new since the last run)" in skipped
    assert "read-only" in result["refused"]["value"] and "scope=write" in result["refused"]["value"]
    assert (
        "shipping.py" in result["reindexed"]["value"]
        and "billing.py" in result["reindexed"]["value"]
    )
    hits = result["search"]["value"]
    assert "billing.py" in hits[0] and "compute_invoice_total" in hits[0]
    # the one refusal the read-only session's click got, and nothing else anywhere
    refusals = result["read-only"]["errors"] + result["refused"]["errors"]
    assert refusals and all("403" in e for e in refusals), refusals
    assert all(not r["errors"] for k, r in result.items() if k not in ("read-only", "refused")), {
        k: r["errors"] for k, r in result.items()
    }


def test_without_the_token_the_page_asks_for_it(stack: Stack, seeded: dict) -> None:
    steps = [
        {
            "name": "locked",
            "goto": "/ui/#/overview",
            "wait": "#banner:not([hidden]) input[type=password]",
            "eval": "({banner: document.querySelector('#banner').innerText, main: document.querySelector('main').innerText})",
        },
        {
            "name": "unlocked",
            "fill": ["#banner input[type=password]", stack.token],
            "press": ["#banner input[type=password]", "Enter"],
            "wait": "main[data-ready=overview] #counts",
            "eval": "({banner: document.querySelector('#banner').hidden, stored: sessionStorage.length + localStorage.length, "
            "cookie: document.cookie})",
        },
    ]
    result = stack.browse(steps, name="token", login=False)
    assert "needs its token" in result["locked"]["value"]["banner"]
    assert "missing or wrong bearer token" in result["locked"]["value"]["main"]
    # the token lives only in an HttpOnly cookie: nothing on the page can read it
    assert result["unlocked"]["value"] == {"banner": True, "stored": 0, "cookie": ""}
    assert result["unlocked"]["errors"] == []


def test_token_in_the_address_is_traded_for_a_cookie_and_hidden(stack: Stack, seeded: dict) -> None:
    steps = [
        {
            "name": "open",
            "goto": f"/ui?token={stack.token}#/memories",
            "wait": "main[data-ready=memories] #results",
            "eval": "({href: location.href, history: history.length, stored: sessionStorage.length, "
            "cookie: document.cookie, rows: document.querySelectorAll('#results tbody tr').length})",
        }
    ]
    result = stack.browse(steps, name="token-url", login=False)
    value = result["open"]["value"]
    assert "token" not in value["href"] and value["href"].endswith("/ui/#/memories")
    assert value["stored"] == 0 and value["cookie"] == ""
    assert value["rows"] >= 3
    assert result["open"]["errors"] == []


def test_neuralgentics_ui_opens_the_page_signed_in_with_a_code_that_works_once(
    stack: Stack, seeded: dict
) -> None:
    """Issue 32 item 3: `neuralgentics ui --print` gives a one-time address; the token is never
    in a URL the browser keeps, and the address opens nothing a second time."""
    from support.cli import neuralgentics

    res = neuralgentics(
        "ui",
        "--print",
        env={"NEURALGENTICS_SERVICE_URL": stack.base, "NEURALGENTICS_TOKEN": stack.token},
    )
    assert res.returncode == 0, res.stderr
    url = res.stdout.strip()
    assert url.startswith(f"{stack.base}/ui/login?code=") and stack.token not in url
    assert "works once" in res.stderr
    path = url.removeprefix(stack.base)
    signed_in = {
        "name": "open",
        "goto": path + "#/memories",
        "wait": "main[data-ready=memories] #results",
        "eval": "({href: location.href, banner: document.querySelector('#banner').hidden, "
        "rows: document.querySelectorAll('#results tbody tr').length})",
    }
    value = stack.browse([signed_in], name="ui-command", login=False)["open"]["value"]
    assert value["href"].endswith("/ui/#/memories") and "code" not in value["href"]
    assert value["banner"] is True and value["rows"] >= 1
    again = {
        "name": "again",
        "goto": path + "#/overview",
        "wait": "#banner:not([hidden]) input[type=password]",
        "eval": "document.querySelector('#banner').innerText",
    }
    banner = stack.browse([again], name="ui-command-again", login=False)["again"]["value"]
    assert "needs its token" in banner and "neuralgentics ui" in banner
