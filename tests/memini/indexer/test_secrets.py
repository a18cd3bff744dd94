"""Issue 13, finding 10: `.env`, `.ssh/id_ed25519` and `credentials` files (not gitignored) were
indexed, and a project search for "private key" returned the key. Secret-bearing files are now
left out by name (a built-in deny list only a .neuralgenticsignore can override) and by content
(private-key blocks skip a file, token shapes skip a chunk), on both stores.

The planted secrets are built at run time, so this file holds none of the shapes it tests."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from indexer_support import git, write

from neuralgentics.app.process import shared_embedder
from neuralgentics.memini.indexer import index_project, search_project, select_files
from neuralgentics.memini.indexer.secrets import token_in
from neuralgentics.ui import project_view


def pem(kind: str, seed: int) -> str:
    body = base64.b64encode(bytes((seed * 7 + i) % 256 for i in range(900))).decode()
    lines = [body[i : i + 64] for i in range(0, len(body), 64)]
    return (
        f"-----BEGIN {kind}PRIVATE KEY-----\n"
        + "\n".join(lines)
        + f"\n-----END {kind}PRIVATE KEY-----\n"
    )


AWS_ID = "AKIA" + "QX7Z" * 4
AWS_SECRET = "wJalr" + "XUtnFEMI" * 4
GH_TOKEN = "ghp" + "_" + "k9Zq2" * 8
NPM_TOKEN = "npm" + "_" + "Ab3dE" * 7 + "F"
STRIPE = "sk" + "_live_" + "51HqW" * 5
PASSWORD = "Sup3r-S3cret-" + "pw" * 4
OPENSSH_KEY = pem("OPENSSH ", 1)
RSA_KEY = pem("RSA ", 2)
PKCS8_KEY = pem("", 3)

SECRET_FILES = {
    ".env": f"DATABASE_URL=postgresql://app:{PASSWORD}@db/app\nSTRIPE_KEY={STRIPE}\n",
    ".env.production": f"API_TOKEN={GH_TOKEN}\n",
    "deploy/prod.env": f"PASSWORD={PASSWORD}\n",
    ".ssh/id_ed25519": OPENSSH_KEY,
    ".ssh/config": "Host prod\n  IdentityFile ~/.ssh/id_ed25519\n",
    "id_rsa": RSA_KEY,
    "deploy/server.pem": RSA_KEY,
    "deploy/tls.key": PKCS8_KEY,
    "credentials": f"[default]\naws_access_key_id = {AWS_ID}\naws_secret_access_key = {AWS_SECRET}\n",
    ".aws/credentials": f"[prod]\naws_secret_access_key = {AWS_SECRET}\n",
    ".netrc": f"machine github.com login me password {PASSWORD}\n",
    ".npmrc": f"//registry.npmjs.org/:_authToken={NPM_TOKEN}\n",
    ".pypirc": f"[pypi]\nusername = __token__\npassword = {PASSWORD}\n",
    ".git-credentials": f"https://me:{GH_TOKEN}@github.com\n",
    "kubeconfig": f"users:\n- name: admin\n  user:\n    token: {PASSWORD}\n",
    ".kube/config": f"users:\n- name: ci\n  user:\n    token: {PASSWORD}\n",
    "infra/prod.tfvars": f'db_password = "{PASSWORD}"\n',
    "infra/terraform.tfstate": f'{{"outputs": {{"db_password": {{"value": "{PASSWORD}"}}}}}}\n',
    "config/secrets.yaml": f"signing_key: {PASSWORD}\n",
    "keystore/app.p12": "not really binary but named like a key bundle\n",
    ".bash_history": f"export AWS_SECRET_ACCESS_KEY={AWS_SECRET}\n",
    # by content: names that say nothing
    "docs/notes.txt": "Paste from the ops channel, do not lose:\n" + PKCS8_KEY,
    "config/service-account.json": '{"type": "service_account", "private_key": "'
    + PKCS8_KEY.replace("\n", "\\n")
    + '"}\n',
}
PLANTED = [
    AWS_ID,
    AWS_SECRET,
    GH_TOKEN,
    NPM_TOKEN,
    STRIPE,
    PASSWORD,
    OPENSSH_KEY.splitlines()[1],
    RSA_KEY.splitlines()[1],
    PKCS8_KEY.splitlines()[1],
]

SIGNING_PY = f'''"""Signing webhooks: the private key is read from the environment, never from the code."""
import os


def load_private_key():
    """Return the private key used to sign outgoing webhooks."""
    return os.environ["WEBHOOK_PRIVATE_KEY"]


def legacy_upload(client):
    """Uploads with the old hard-coded access key (to be rotated)."""
    return client.put(access_key="{AWS_ID}", secret="{AWS_SECRET}")


def sign(payload, key):
    """Sign a payload with the private key."""
    return key.sign(payload)
'''


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "payments"
    root.mkdir()
    git(root, "init", "-q")
    for rel, text in SECRET_FILES.items():
        write(root, rel, text)
    write(
        root,
        "README.md",
        "# Payments\n\nRotate the private key used to sign webhooks every 90 days.\n",
    )
    write(root, "app/signing.py", SIGNING_PY)
    write(root, ".env.example", "DATABASE_URL=postgresql://user:password@localhost/app\n")
    # a .gitignore cannot bring a secret file back...
    write(root, ".gitignore", "!credentials\n!.env\n*.log\n")
    # ...an explicit line in .neuralgenticsignore can
    write(root, ".neuralgenticsignore", "!ops/secrets.yaml\n")
    write(
        root,
        "ops/secrets.yaml",
        "# which vault path holds each private key\nsigning: vault/kv/webhooks\n",
    )
    return root


def test_secret_files_are_never_indexed_or_found(project: Path, chunks) -> None:
    report = index_project(project, chunks, embedder=shared_embedder())
    skipped = {s.path: s.reason for s in report.skipped}
    for rel in SECRET_FILES:
        top = rel.split("/")[0] + "/" if rel.startswith((".ssh/", ".aws/", ".kube/")) else rel
        assert top in skipped, (rel, sorted(skipped))
        assert "secret deny list" in skipped[top] or "private key" in skipped[top], (
            rel,
            skipped[top],
        )
    assert skipped["docs/notes.txt"] == "holds a private key (secret content check)"
    assert skipped["config/service-account.json"] == "holds a private key (secret content check)"
    indexed = set(chunks.file_states(str(project)))
    assert indexed == {
        "README.md",
        "app/signing.py",
        ".env.example",
        ".gitignore",
        ".neuralgenticsignore",
        "ops/secrets.yaml",
    }
    # the chunk with the hard-coded key is left out, the file's other functions are kept
    assert report.secret_chunks == 1

    secret_paths = set(SECRET_FILES)
    queries = [
        "private key",
        "BEGIN PRIVATE KEY",
        "aws secret access key",
        "password token",
        "ssh id_ed25519",
        AWS_ID,
        "legacy_upload access key",
    ]
    seen = 0
    for query in queries:
        for mode in ("hybrid", "keyword", "vector"):
            hits = search_project(
                chunks, str(project), query, top_k=20, mode=mode, embedder=shared_embedder()
            )
            seen += len(hits)
            for hit in hits:
                assert hit.file_path not in secret_paths, (query, mode, hit.file_path)
                assert not any(secret in hit.content for secret in PLANTED), (
                    query,
                    mode,
                    hit.file_path,
                )
    assert seen > 0
    found = search_project(chunks, str(project), "private key", top_k=5, embedder=shared_embedder())
    assert {h.file_path for h in found} & {"app/signing.py", "README.md", "ops/secrets.yaml"}
    symbols = {
        h.symbol
        for h in search_project(
            chunks, str(project), "sign load private key", top_k=20, embedder=shared_embedder()
        )
    }
    assert {"load_private_key", "sign"} <= symbols and "legacy_upload" not in symbols


def test_the_dashboard_lists_why_each_secret_is_left_out(project: Path, sqlite_chunks) -> None:
    index_project(project, sqlite_chunks, embedder=shared_embedder())
    listed = {
        f["path"]: f["reason"]
        for f in project_view.skipped_files(sqlite_chunks, str(project))["files"]
    }
    assert listed[".env"].startswith("ignored by built-in secret deny list (")
    assert listed[".ssh/"] == "ignored by built-in secret deny list (.ssh/)"
    assert listed["docs/notes.txt"] == "holds a private key (secret content check)"


def test_the_deny_list_yields_only_to_neuralgenticsignore(tmp_path: Path) -> None:
    root = tmp_path / "p"
    for rel in (
        ".env",
        "x/.env.local",
        "a.pem",
        "credentials.json",
        ".env.example",
        "x.env.sample",
    ):
        write(root, rel, "harmless\n")
    write(root, ".gitignore", "!.env\n!a.pem\n")
    kept = {c.path for c in select_files(root).candidates}
    assert kept == {".env.example", "x.env.sample", ".gitignore"}
    write(root, ".neuralgenticsignore", "!a.pem\n!x/.env.local\n")
    kept = {c.path for c in select_files(root).candidates}
    assert kept == {
        ".env.example",
        "x.env.sample",
        ".gitignore",
        ".neuralgenticsignore",
        "a.pem",
        "x/.env.local",
    }


@pytest.mark.parametrize(
    "text,kind",
    [
        (AWS_ID, "AWS access key id"),
        (GH_TOKEN, "GitHub token"),
        (NPM_TOKEN, "npm token"),
        (STRIPE, "Stripe key"),
        ("xox" + "b-" + "1234567890-abcdefghij", "Slack token"),
        ("AI" + "za" + "S" * 35, "Google API key"),
        ("gl" + "pat-" + "x" * 20, "GitLab token"),
        (
            "eyJ" + "hbGciOiJIUzI1NiJ9" + ".eyJ" + "zdWIiOiIxMjM0NTY3ODkwIn0" + ".abcdefghijklmnop",
            "JSON Web Token",
        ),
        ("sk" + "-proj-" + "A1b2" * 10, "API secret key (sk-…)"),
    ],
)
def test_token_shapes(text: str, kind: str) -> None:
    assert token_in(f"value = '{text}'\n") == kind
    for harmless in ("task-1234", "sk-learn", "risk-free", "AKIA", "ghp_short", "desk-" + "a" * 40):
        assert token_in(harmless) is None, harmless
