"""Issue 13, finding 5: no secret reaches the audit, wherever in a record it would land.

A planted corpus of secret shapes goes through a real `neuralgentics broker serve` (JSONL) and
through a broker auditing into PostgreSQL, every way a value reaches a record: as an argument
under an innocent key, nested, as a key, inside a schema-validation error, inside a downstream
error, as a tool name; and the values of secret-keyed arguments, quoted back by a validation
error. None of the secret parts may appear in any sink."""

from __future__ import annotations

import json
import random
import string
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from neuralgentics.config import Settings
from reliability import loopback
from reliability.broker_proc import owner, probe, serving, write_config

rng = random.Random(13)


def rand(n: int, alphabet: str = string.ascii_letters + string.digits) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


HEX = "0123456789abcdef"
B64URL = string.ascii_letters + string.digits + "-_"

# (label, text planted, the secret part that must not be written)
CORPUS: list[tuple[str, str, str]] = []


def plant(label: str, template: str, secret: str) -> None:
    CORPUS.append((label, template.format(s=secret), secret))


plant("openai key", "{s}", "sk-" + rand(48))
plant("openai project key", "key is {s} ok", "sk-proj-" + rand(40, B64URL))
plant("anthropic key", "{s}", "sk-ant-api03-" + rand(60, B64URL))
plant("stripe live key", "charge with {s}", "sk_live_" + rand(24))
plant("stripe restricted key", "{s}", "rk_live_" + rand(24))
plant("github classic token", "{s}", "ghp_" + rand(36))
plant("github oauth token", "token={s}", "gho_" + rand(36))
plant("github fine-grained", "{s}", "github_pat_" + rand(22) + "_" + rand(59))
plant("gitlab token", "{s}", "glpat-" + rand(20, B64URL))
plant("slack bot token", "{s}", "xoxb-" + rand(12, string.digits) + "-" + rand(24))
plant("slack user token", "use {s} for it", "xoxp-" + rand(12, string.digits) + "-" + rand(24))
plant("aws access key id", "{s}", "AKIA" + rand(16, string.ascii_uppercase + string.digits))
plant(
    "aws secret in env form",
    "aws_secret_access_key={s}",
    rand(40, string.ascii_letters + string.digits + "/+"),
)
plant("google api key", "{s}", "AIza" + rand(35, B64URL))
plant("google oauth token", "{s}", "ya29." + rand(60, B64URL))
plant(
    "jwt",
    "session {s}",
    "eyJ" + rand(30, B64URL) + ".eyJ" + rand(40, B64URL) + "." + rand(43, B64URL),
)
plant("bearer, leading space", " Bearer {s}", rand(32))
plant("bearer, tab and newline", "Authorization:\tBearer\n{s}", rand(32))
plant("token scheme", "Token {s}", rand(20, HEX))
plant("basic auth", "Basic {s}", "dXNlcjpw" + rand(16) + "==")
plant("postgres url password", "postgresql://app:{s}@db.internal:5432/prod", rand(18))
plant("mysql url password", "mysql://root:{s}@127.0.0.1/x", rand(14))
plant("redis url password", "redis://:{s}@cache:6379/0", rand(20))
plant("url query api_key", "https://api.example.com/v1/x?api_key={s}&q=1", rand(32))
plant("url query access_token", "https://h.example/cb?state=1&access_token={s}", rand(40))
plant("password pair", "login with password={s} please", rand(16))
plant(
    "passphrase quoted",
    "passphrase: '{s}'",
    " ".join(rand(7, string.ascii_lowercase) for _ in range(4)),
)
plant("client_secret json", '{{"client_secret": "{s}"}}', rand(30))
plant(
    "azure account key",
    "DefaultEndpointsProtocol=https;AccountName=x;AccountKey={s};",
    rand(86, string.ascii_letters + "+/") + "==",
)
plant(
    "rsa private key",
    "-----BEGIN RSA PRIVATE KEY-----\n{s}\n-----END RSA PRIVATE KEY-----",
    rand(64, string.ascii_letters + "+/"),
)
plant(
    "openssh private key",
    "-----BEGIN OPENSSH PRIVATE KEY-----\n{s}\n-----END OPENSSH PRIVATE KEY-----",
    rand(70),
)
plant("private key cut short", "key: -----BEGIN PRIVATE KEY-----\n{s}", rand(64))
plant("npm token", "{s}", "npm_" + rand(36))
plant("pypi token", "{s}", "pypi-AgEIcHlwaS5vcmc" + rand(50, B64URL))
plant("hugging face token", "{s}", "hf_" + rand(34))
plant("sendgrid key", "{s}", "SG." + rand(22, B64URL) + "." + rand(43, B64URL))
plant("twilio key", "{s}", "SK" + rand(32, HEX))
plant("digitalocean token", "{s}", "dop_v1_" + rand(64, HEX))
plant("shopify token", "{s}", "shpat_" + rand(32, HEX))
plant("api key pair, colon", "X-API-Key: {s}", rand(28))

# Values under secret keys: not secret-shaped, known secret only by their key.
KEYED = {
    "api_key": "k3y-" + rand(12),
    "password": "hunter2-" + rand(8),
    "passphrase": "correct horse " + rand(6),
    "pin": "48" + rand(4, string.digits),
    "db_password": rand(10),
    "client_secret": rand(16),
}


def requests() -> list[tuple[str, dict]]:
    """(how, call body) for every way a planted value reaches a record."""
    out: list[tuple[str, dict]] = []
    for label, text, _ in CORPUS:
        out += [
            (
                f"{label}: argument",
                {"server": "probe", "tool": "echo", "arguments": {"text": text}},
            ),
            (
                f"{label}: nested",
                {
                    "server": "probe",
                    "tool": "echo",
                    "arguments": {"text": "t", "extra": {"deep": [{"v": text}]}},
                },
            ),
            (
                f"{label}: as a key",
                {"server": "probe", "tool": "echo", "arguments": {"text": "t", text: 1}},
            ),
            (
                f"{label}: in a validation error",
                {"server": "probe", "tool": "echo", "arguments": {"text": [text]}},
            ),
            (
                f"{label}: in a downstream error",
                {"server": "probe", "tool": "fail", "arguments": {"message": text}},
            ),
        ]
    out.append(
        (
            "keyed values quoted by a validation error",
            {
                "server": "probe",
                "tool": "echo",
                "arguments": {"text": "t", **{k: [v] for k, v in KEYED.items()}},
            },
        )
    )
    out.append(
        (
            "keyed values, plain",
            {"server": "probe", "tool": "echo", "arguments": {"text": "t", **KEYED}},
        )
    )
    # a downstream that quotes back what it was sent under secret keys, in its error text
    out.append(
        (
            "keyed values echoed back in an error",
            {
                "server": "probe",
                "tool": "fail",
                "arguments": {"message": " / ".join(KEYED.values()), **KEYED},
            },
        )
    )
    out.append(("secret as a tool name", {"server": "probe", "tool": CORPUS[0][1]}))
    return out


SECRETS = [(label, secret) for label, _, secret in CORPUS] + [
    (f"keyed {k}", v) for k, v in KEYED.items()
]


def _leaks(blob: bytes) -> list[str]:
    return [
        label
        for label, secret in SECRETS
        if secret.encode() in blob or json.dumps(secret)[1:-1].encode() in blob
    ]


def test_corpus_is_at_least_30_shapes() -> None:
    assert len(CORPUS) >= 30 and len({label for label, _, _ in CORPUS}) == len(CORPUS)


def test_no_planted_secret_reaches_the_jsonl_audit(tmp_path: Path) -> None:
    config = write_config(
        tmp_path / "broker.yaml", {"probe": probe()}, {"coder": {"allow": ["probe/*"]}}
    )
    sent = requests()
    with serving(config, tmp_path) as (base, _):

        def call(n: int) -> tuple[str, int, str]:
            how, body = sent[n]
            r = loopback.post(
                base + "/call",
                json=body,
                timeout=60,
                headers=owner(
                    base, **{"X-Neuralgentics-Role": "coder", "X-Neuralgentics-Session": f"s{n}"}
                ),
            )
            return how, r.status_code, r.text[:300]

        with ThreadPoolExecutor(8) as pool:  # the same calls, a few in flight at a time
            for how, status, text in pool.map(call, range(len(sent))):
                assert status < 500, (how, text)
    audit = tmp_path / "home" / "broker" / "audit.jsonl"
    records = [json.loads(x) for x in audit.read_text().splitlines()]
    assert {r["session_id"] for r in records if r["kind"] == "call"} >= {
        f"s{n}" for n in range(len(sent))
    }
    leaked = _leaks(audit.read_bytes())
    assert not leaked, (
        f"{len(leaked)} of {len(SECRETS)} planted secrets written to the audit: {leaked}"
    )
    # the records stay useful: the redaction is of the secret, not of the whole record
    downstream = [r for r in records if r["tool"] == "fail" and r["outcome"] == "tool_error"]
    assert downstream and all(r["error"].startswith("could not process") for r in downstream)
    print(
        "planted",
        len(CORPUS),
        "shapes +",
        len(KEYED),
        "keyed values in",
        len(sent),
        "calls: 0 written",
    )


@pytest.mark.postgres
async def test_no_planted_secret_reaches_the_postgres_audit(
    tmp_path, request, tmp_path_factory
) -> None:
    import psycopg
    from support.postgres import drop_database, fresh_database, postgres_url

    from neuralgentics.broker.config import BrokerConfig
    from neuralgentics.broker.errors import BrokerError
    from neuralgentics.broker.service import Broker

    url = fresh_database(postgres_url(tmp_path_factory, request.config))
    try:
        config = BrokerConfig.model_validate(
            {
                "servers": {"probe": probe()},
                "roles": {"coder": {"allow": ["probe/*"]}},
                "audit": {"sink": "postgres", "database_url": url},
            }
        )
        sent = requests()
        async with Broker.open(config=config, settings=Settings()) as broker:
            for _how, body in sent:
                try:
                    await broker.call(role="coder", front="rest", credential="owner", **body)
                except BrokerError:
                    pass
        with psycopg.connect(url) as conn:
            rows = conn.execute(
                "SELECT row_to_json(broker_audit)::text FROM broker_audit"
            ).fetchall()
        assert len(rows) >= len(sent)
        leaked = _leaks("\n".join(r[0] for r in rows).encode())
        assert not leaked, f"{len(leaked)} planted secrets written to broker_audit: {leaked}"
    finally:
        drop_database(url)
