"""Token counts remembered across processes (`token_counts.py`): a `broker stdio` start that
renders the catalog it rendered last time does so without loading the tokenizer, and a count
read from disk is never wrong (a file from another encoding, or broken, is ignored)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

TEXTS = ["get_current_time: Get current time in a specific timezone", '{"type":"object"}']


def run(code: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def count_in_a_new_process(path: Path, texts: list[str], save: bool = False) -> dict:
    return run(
        f"""
import json, sys
from pathlib import Path
from neuralgentics import token_counts as tokens
tokens.load_counts(Path({str(path)!r}))
counts = [tokens.count_tokens(t) for t in {texts!r}]
if {save!r}:
    tokens.save_counts(Path({str(path)!r}))
print(json.dumps({{"counts": counts, "tokenizer_loaded": "tiktoken" in sys.modules}}))
"""
    )


def test_a_second_start_counts_the_same_texts_without_the_tokenizer(tmp_path: Path) -> None:
    path = tmp_path / "broker" / "token-counts.json"
    first = count_in_a_new_process(path, TEXTS, save=True)
    assert first["tokenizer_loaded"] and all(n > 0 for n in first["counts"])
    second = count_in_a_new_process(path, TEXTS)
    assert second == {"counts": first["counts"], "tokenizer_loaded": False}
    # A text never counted before is counted for real.
    third = count_in_a_new_process(path, [*TEXTS, "a text never counted before"])
    assert third["tokenizer_loaded"] and third["counts"][:2] == first["counts"]
    assert third["counts"][2] > 0


def test_a_file_of_another_encoding_or_a_broken_one_changes_no_count(tmp_path: Path) -> None:
    path = tmp_path / "token-counts.json"
    truth = count_in_a_new_process(tmp_path / "none.json", TEXTS)["counts"]
    # The same digests with wrong counts, saved for another encoding: ignored.
    count_in_a_new_process(path, TEXTS, save=True)
    data = json.loads(path.read_text())
    data["encoding"] = "o200k_base"
    data["counts"] = {k: 999 for k in data["counts"]}
    path.write_text(json.dumps(data))
    assert count_in_a_new_process(path, TEXTS)["counts"] == truth
    path.write_text("{not json")
    assert count_in_a_new_process(path, TEXTS)["counts"] == truth
