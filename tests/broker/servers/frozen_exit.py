"""`python frozen_exit.py MODULE ARGS…` runs a Python MCP server (mcp-server-time, mcp-server-git)
as `python -m MODULE ARGS…` does — the same code, the same protocol on its pipes — with the
garbage collector's objects frozen at exit. The interpreter's last full collections walk every
object the server's imports made: about half a second of each stop, which the broker (and the
test behind it) waits out every time it stops one; the broker itself does the same (cli.main).
"""

import atexit
import gc
import runpy
import sys

atexit.register(gc.freeze)
module = sys.argv.pop(1)
runpy.run_module(module, run_name="__main__", alter_sys=True)
