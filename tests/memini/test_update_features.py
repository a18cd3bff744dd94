"""The parts update detection reads from a fact and compares between two (pure functions;
the end-to-end behaviour is in test_updates.py)."""

from __future__ import annotations

import pytest

from neuralgentics.memini.updates.features import FEATURES, pair_features, value_changes
from neuralgentics.memini.updates.text import read


def features(new: str, old: str, cosine: float = 0.5) -> dict[str, float]:
    return dict(zip(FEATURES, pair_features(read(new), read(old), cosine), strict=True))


def test_values_are_numbers_with_units_identifiers_and_names() -> None:
    fact = read("Priya Nair moved ledger-api to port 8181 on api.example.com in 30 minutes.")
    assert {"priya", "nair", "ledger-api", "8181", "api.example.com"} <= fact.values
    assert ("30", "min") in fact.numbers
    assert {"ledger", "api"} <= fact.subject  # an identifier's parts say what it is about
    assert "moved" in fact.change_cues


def test_a_sentence_opening_capital_is_a_word_unless_a_name_follows() -> None:
    assert "deploys" not in read("Deploys run on Fridays.").values
    assert {"sara", "haddad"} <= read("Sara Haddad runs the registry.").values
    assert "marisol" in read("Marisol's team also includes Luca.").values


def test_the_same_quantity_changed_differs_from_two_quantities() -> None:
    same = features("Backups are kept for 30 days.", "Backups are kept for 7 days.")
    assert same["same_unit_changed"] == 1 and same["units_differ"] == 0
    two = features("Refresh tokens live 30 days.", "Access tokens live 60 minutes.")
    assert two["units_differ"] == 1 and two["contrast"] == 1  # access / refresh


def test_siblings_are_not_versions() -> None:
    assert features("cart-svc listens on 8082.", "catalog-svc listens on 8081.")["sibling_ids"] == 1
    versions = features("Renditions go to wl-renditions-v2.", "Renditions go to wl-renditions.")
    assert versions["sibling_ids"] == 0 and versions["value_replaced"] == 1


def test_the_old_value_named_beside_a_removal_word() -> None:
    f = features("CI moved to GitHub Actions; the Jenkins box was retired.", "CI runs on Jenkins.")
    assert f["old_named_going"] == 1 and f["change_cue"] == 2
    kept = features("Ana's team also includes Bo for exports.", "Ana Lima owns billing.")
    assert kept["old_named_going"] == 0 and kept["additive_cue"] >= 1


@pytest.mark.parametrize(
    "new, old, gone, came",
    [
        (
            "The API listens on 9090; 8080 was freed.",
            "The API listens on 8080.",
            ["8080"],
            ["9090"],
        ),
        ("QA lead: Daniel Kim.", "Sunita Rao runs QA.", ["Sunita", "Rao"], ["Daniel", "Kim"]),
    ],
)
def test_value_changes_are_shown_as_written(new, old, gone, came) -> None:
    assert value_changes(read(new), read(old)) == (gone, came)


def test_attribution_on_both_sides() -> None:
    f = features("The ops dashboard shows 9 nodes.", "The wiki says the cluster has 12 nodes.")
    assert f["attribution"] == 1 and f["same_unit_changed"] == 1
