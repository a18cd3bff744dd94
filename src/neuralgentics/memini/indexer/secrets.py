"""What the indexer keeps out because it holds secrets: files by name, and text by shape.

An index is searchable by every agent and shown by the dashboard; a key in it is a key
handed out. The name list follows what secret scanners flag as sensitive files (gitrob's and
shhgit's file signatures, the files gitleaks/trufflehog most often find credentials in):
environment files, private keys and key stores, SSH/GnuPG/cloud/Kubernetes client
directories, credential stores of package managers and tools, Terraform state and variables,
shell and database client histories. It is the lowest layer of the ignore rules; only an
explicit `!pattern` in a `.neuralgenticsignore` brings a file back (a `.gitignore` cannot).

The content check runs on every file read, whatever its name: a file holding a private-key
block is skipped whole; a chunk holding a token of a well-known shape (AWS access key id,
GitHub/GitLab/Slack/npm/PyPI/Stripe/Google/OpenAI-style keys, JWTs) is left out of the index,
and the rest of the file kept. Only shapes that are near-certain secrets are matched: a URL
with `user:password@` or a `password = "..."` line is too common in documentation and tests to
drop.
"""

from __future__ import annotations

import re

from neuralgentics.secret_shapes import token_kind

# gitignore syntax; a pattern without a slash matches the name anywhere in the tree.
SECRET_FILES: tuple[str, ...] = (
    # environment files (templates with placeholder values are kept)
    ".env",
    ".env.*",
    "*.env",
    "!.env.example",
    "!.env.sample",
    "!.env.template",
    "!.env.dist",
    "!.env.defaults",
    "!*.env.example",
    "!*.env.sample",
    "!*.env.template",
    # private keys, certificates bundles with keys, key stores, password databases
    "*.pem",
    "*.key",
    "*.p8",
    "*.p12",
    "*.pfx",
    "*.pkcs12",
    "*.jks",
    "*.keystore",
    "*.ppk",
    "*.asc",
    "*.kdb",
    "*.kdbx",
    "*.agilekeychain",
    "*.keychain",
    "otr.private_key",
    "id_rsa",
    "id_rsa.*",
    "id_dsa",
    "id_dsa.*",
    "id_ecdsa",
    "id_ecdsa.*",
    "id_ed25519",
    "id_ed25519.*",
    "*_rsa",
    "*_dsa",
    "*_ecdsa",
    "*_ed25519",
    # client directories that hold keys and tokens
    ".ssh/",
    ".gnupg/",
    ".aws/",
    ".azure/",
    ".kube/",
    ".docker/config.json",
    ".gem/credentials",
    ".chef/",
    ".config/gcloud/",
    ".terraform.d/credentials.tfrc.json",
    # credential stores of tools and package managers
    "credentials",
    "credentials.json",
    "credentials.xml",
    "credentials.yml",
    "credentials.yaml",
    "credentials.toml",
    "credentials.ini",
    "credentials.csv",
    "client_secret*.json",
    ".git-credentials",
    ".netrc",
    "_netrc",
    ".npmrc",
    ".yarnrc.yml",
    ".pypirc",
    ".pgpass",
    ".my.cnf",
    ".s3cfg",
    ".boto",
    ".dockercfg",
    ".htpasswd",
    ".vault-token",
    "kubeconfig",
    "*.kubeconfig",
    "secrets.yml",
    "secrets.yaml",
    "secrets.json",
    "secrets.toml",
    ".secrets",
    "master.key",
    "*.ovpn",
    # infrastructure state and variables (Terraform state holds every secret it created)
    "*.tfstate",
    "*.tfstate.backup",
    "*.tfvars",
    "*.tfvars.json",
    # shell and database client histories (commands with passwords in them)
    ".bash_history",
    ".zsh_history",
    ".sh_history",
    ".history",
    ".python_history",
    ".psql_history",
    ".mysql_history",
    ".irb_history",
    ".node_repl_history",
)
LABEL = "built-in secret deny list"

# A private-key block with its key material: the BEGIN line, optional PEM headers, then
# base64. A line that only mentions the marker (a parser, a doc) is not a key. The second form
# is the same inside a JSON string (a cloud service-account file: "-----BEGIN...-----\n...").
_PRIVATE_KEY = re.compile(
    r"-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----"
    r"(?:\r?\n(?:[A-Za-z-]+: [^\n]*\r?\n)*(?:\r?\n)?|\\n)"
    r"[A-Za-z0-9+/=]{40,}"
    r"|PuTTY-User-Key-File-\d+: "
)

# Token shapes: the one table the audit redaction shares (neuralgentics/secret_shapes.py).


def file_reason(text: str) -> str | None:
    """Why a whole file stays out of the index (it holds a private key), or None."""
    if _PRIVATE_KEY.search(text):
        return "holds a private key (secret content check)"
    return None


def token_in(text: str) -> str | None:
    """The kind of the first well-known token shape in `text`, or None."""
    return token_kind(text)
