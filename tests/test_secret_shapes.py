"""The one table of token shapes (secret_shapes.py): each shape is recognised by the project
index and scrubbed from audit records, and near-misses (placeholders, words) are not."""

from __future__ import annotations

import pytest

from neuralgentics.broker.audit.redact import REDACTED, scrub_shapes
from neuralgentics.memini.indexer.secrets import token_in
from neuralgentics.secret_shapes import TOKEN_SHAPES, token_kind

# Built from parts, so this file holds no string a secret scanner (or our own index) flags.
SAMPLES: dict[str, list[str]] = {
    "AWS access key id": [
        p + "QX7Z2M4K" + "9ABCDEF0" for p in ("AK" + "IA", "AS" + "IA", "AB" + "IA", "AC" + "CA")
    ]
    + [p + "QX7Z2M4K9ABCDEF0" for p in ("AG" + "PA", "AI" + "DA", "AR" + "OA")],
    "GitHub token": ["gh" + k + "_" + "k9Zq2" * 8 for k in "pousr"],
    "GitHub fine-grained token": ["github" + "_pat_" + "A1b2C" * 4 + "_" + "x9Y8z" * 12],
    "GitLab token": ["gl" + "pat-" + "x" * 20],
    "Slack token": ["xo" + "xb-" + "1234567890-abcdefghij", "xo" + "xp-" + "1234567890"],
    "Slack app token": ["xa" + "pp-1-" + "A0123456789-abc"],
    "Slack webhook": ["https://hooks.slack" + ".com/services/T0123ABCD/B0456EFGH/" + "aB3dE" * 5],
    "API secret key (sk-…)": [
        "sk" + "-" + "A1b2" * 12,
        "sk" + "-proj-" + "A1b2" * 10,
        "sk" + "-ant-api03-" + "Zz9_" * 15,
    ],
    "Stripe key": ["sk" + "_live_" + "Ab3dE" * 5, "rk" + "_test_" + "Ab3dE" * 5],
    "Google API key": ["AI" + "za" + "S" * 35],
    "Google OAuth token": ["ya" + "29." + "a0Bc" * 8],
    "npm token": ["npm" + "_" + "Ab3dE" * 7 + "F"],
    "PyPI token": ["py" + "pi-AgEIcHlwaS5vcmc" + "Ab3dE" * 10],
    "Hugging Face token": ["hf" + "_" + "Ab3dE" * 7],
    "SendGrid key": ["SG" + "." + "a" * 22 + "." + "b" * 43],
    "DigitalOcean token": ["do" + "p_v1_" + "0a1b" * 16],
    "Shopify token": ["shp" + "at_" + "0a1B" * 8],
    "JSON Web Token": [
        "eyJ" + "hbGciOiJIUzI1NiJ9" + ".eyJ" + "zdWIiOiIxMjM0NTY3ODkwIn0" + ".abcdefghijklmnop"
    ],
}

HARMLESS = [
    "task-1234",
    "sk-learn",
    "risk-free",
    "desk-" + "a" * 40,
    "AK" + "IA",
    "AK" + "IA" + "short",
    "gh" + "p_short",
    "xo" + "xb-yourtoken",  # a placeholder: 9 characters, less than any real token's id
    "AI" + "za" + "tooShort",
    "npm" + "_install",
    "hf" + "_endpoint",
]


def test_every_shape_of_the_table_has_samples() -> None:
    assert set(SAMPLES) == {name for name, _, _ in TOKEN_SHAPES}


@pytest.mark.parametrize(
    "name,sample", [(name, s) for name, samples in SAMPLES.items() for s in samples]
)
def test_each_shape_is_kept_out_of_the_index_and_the_audit(name: str, sample: str) -> None:
    assert token_kind(f"value = '{sample}'\n") == name
    assert token_in(f"export TOKEN_VALUE={sample}") == name  # the index's check is the table's
    scrubbed = scrub_shapes(f"the call failed: {sample} was refused")
    assert sample not in scrubbed and REDACTED in scrubbed, scrubbed


@pytest.mark.parametrize("text", HARMLESS)
def test_near_misses_are_not_tokens(text: str) -> None:
    assert token_kind(text) is None
    assert token_in(f"see {text} in the docs") is None


@pytest.mark.parametrize(
    "sample",
    [
        "sk" + "-live-" + "0123456789abcdefAB",
        "pk" + "_test_" + "0123456789ab",
        "rk" + "-" + "a1B2" * 4,
    ],
)
def test_the_audit_also_scrubs_shorter_provider_keys_the_index_keeps(sample: str) -> None:
    # a key the value passes through a tool call (CI found `sk-live-…` left in audit.jsonl)
    scrubbed = scrub_shapes(f'{{"text": "{sample}"}}')
    assert sample not in scrubbed and REDACTED in scrubbed, scrubbed
    assert token_kind(sample) is None  # the index would drop every chunk naming such a test key
