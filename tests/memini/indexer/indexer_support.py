"""Real repositories (git init, files in several languages) and real stores for indexer tests."""

from __future__ import annotations

import subprocess
import textwrap
from pathlib import Path

import pytest

PY_SOURCE = '''\
"""Billing helpers."""

import math


def compute_invoice_total(items, tax_rate):
    """Sum the line items of an invoice and add the tax."""
    subtotal = sum(item.price * item.quantity for item in items)
    return math.ceil(subtotal * (1 + tax_rate) * 100) / 100


class PaymentGateway:
    """Talks to the card processor."""

    def charge_card(self, card_number, amount):
        """Charge a credit card and return the transaction id."""
        if amount <= 0:
            raise ValueError("amount must be positive")
        return f"txn-{card_number[-4:]}-{amount}"
'''

TS_SOURCE = """\
import { readFileSync } from "fs";

export interface UserProfile {
  name: string;
  email: string;
}

export function parseUserProfile(json: string): UserProfile {
  const data = JSON.parse(json);
  return { name: data.name, email: data.email };
}

export const loadProfileFromDisk = (path: string): UserProfile =>
  parseUserProfile(readFileSync(path, "utf8"));
"""

GO_SOURCE = """\
package server

import "net/http"

// HealthHandler answers liveness probes.
func HealthHandler(w http.ResponseWriter, r *http.Request) {
	w.WriteHeader(http.StatusOK)
}

type Router struct {
	routes map[string]http.HandlerFunc
}

func (r *Router) Register(path string, h http.HandlerFunc) {
	r.routes[path] = h
}
"""

RUST_SOURCE = """\
pub struct RingBuffer {
    data: Vec<u8>,
    head: usize,
}

impl RingBuffer {
    pub fn push_byte(&mut self, b: u8) {
        self.data[self.head] = b;
        self.head = (self.head + 1) % self.data.len();
    }
}
"""

JAVA_SOURCE = """\
public class OrderService {
    public double applyDiscount(double price, double percent) {
        return price * (1 - percent / 100.0);
    }
}
"""

C_SOURCE = """\
#include <string.h>

int count_vowels(const char *s) {
    int n = 0;
    for (; *s; s++) if (strchr("aeiou", *s)) n++;
    return n;
}
"""

RUBY_SOURCE = """\
module Greeter
  class Welcome
    def greet_visitor(name)
      "Welcome, #{name}!"
    end
  end
end
"""

MD_SOURCE = """\
# Project handbook

Read this first.

## Deployment

Deploy with the blue-green strategy: start the new fleet, shift traffic, drain the old one.

## Code review

Every change needs one approving review.
"""


def git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.email=t@example.com", "-c", "user.name=t", *args],
        cwd=root,
        check=True,
        capture_output=True,
        timeout=30,
    )


def write(root: Path, rel: str, text: str | bytes) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A small git repository in eight languages plus the usual clutter to be skipped."""
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    write(root, "billing/invoice.py", PY_SOURCE)
    write(root, "web/profile.ts", TS_SOURCE)
    write(root, "server/health.go", GO_SOURCE)
    write(root, "src/ring.rs", RUST_SOURCE)
    write(root, "java/OrderService.java", JAVA_SOURCE)
    write(root, "c/vowels.c", C_SOURCE)
    write(root, "lib/greeter.rb", RUBY_SOURCE)
    write(root, "docs/handbook.md", MD_SOURCE)
    write(root, ".gitignore", "*.log\nsecrets/\n")
    write(root, "debug.log", "noise\n")
    write(root, "secrets/key.txt", "hunter2\n")
    write(root, "node_modules/left-pad/index.js", "module.exports = 1;\n")
    write(root, "package-lock.json", "{}\n")
    write(root, "logo.png", b"\x89PNG\r\n\x1a\n" + bytes(range(256)))
    write(root, "data.weird", b"abc\x00def" * 10)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "init")
    return root


@pytest.fixture
def sqlite_chunks(tmp_path: Path):
    from neuralgentics.memini.indexer.chunkstore_sqlite import SQLiteChunkStore
    from neuralgentics.memini.store.sqlite import SQLiteStore

    store = SQLiteChunkStore(SQLiteStore(tmp_path / "db" / "memini.db"), owns_store=True)
    yield store
    store.close()


@pytest.fixture(params=["sqlite", "postgres"])
def chunks(request, tmp_path: Path):
    """Each store the indexer runs on; the same contract tests run against both."""
    if request.param == "sqlite":
        yield request.getfixturevalue("sqlite_chunks")
        return
    from support.postgres import drop_database, fresh_database

    from neuralgentics.memini.indexer.chunkstore_postgres import PostgresChunkStore
    from neuralgentics.memini.store.postgres import PostgresStore

    url = fresh_database(request.getfixturevalue("pg_server"), "idx")
    store = PostgresChunkStore(PostgresStore(url, max_size=4), owns_store=True)
    yield store
    store.close()
    drop_database(url)


class _NoModel:
    """An embedder that must not be used: a run with nothing new to embed never calls it."""

    model_name = "none"
    dim = 384

    def embed(self, texts):
        raise AssertionError("the model was asked for, but nothing new needed embedding")


no_model = _NoModel()


def dedent(text: str) -> str:
    return textwrap.dedent(text)
