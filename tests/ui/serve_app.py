"""memini-core with the dashboard mounted, as a real HTTP server for the browser tests.

Uses `create_app` and adds what the integrator's app.py may not mount yet: the dashboard
router (and its open page paths) and the project indexer's router. Once app.py mounts them,
this adds nothing and is the same as `neuralgentics serve`.

    python tests/ui/serve_app.py PORT
"""

from __future__ import annotations

import sys

import uvicorn


def build():
    from neuralgentics.memini import app as memini_app
    from neuralgentics.ui import PUBLIC_PATHS, router

    app = memini_app.create_app()
    paths = {getattr(r, "path", None) for r in app.routes}
    if "/ui/" not in paths:
        app.include_router(router)
        # the page and its assets carry no data; the integrator opens them the same way
        memini_app.OPEN_PATHS.update(PUBLIC_PATHS)
    if "/project/list" not in paths:
        from neuralgentics.memini.indexer.routes import create_router

        # drop the 501 placeholder so the indexer's own GET /project/index answers
        app.router.routes[:] = [r for r in app.router.routes if getattr(r, "path", None) != "/project/index"]
        app.include_router(create_router())
    return app


if __name__ == "__main__":
    uvicorn.run(build(), host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
