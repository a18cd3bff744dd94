"""memini-core as `neuralgentics serve` runs it, as a real HTTP server for the browser tests.

python tests/ui/serve_app.py PORT
"""

from __future__ import annotations

import sys

import uvicorn


def build():
    from neuralgentics.app.core import create_app

    return create_app()


if __name__ == "__main__":
    uvicorn.run(build(), host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
