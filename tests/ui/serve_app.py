"""memini-core with the dashboard mounted, as a real HTTP server for the browser tests.

Uses `create_app` and adds what the integrator's app.py may not mount yet: the dashboard
router (and its open page paths) and the project indexer's router. Once app.py mounts them,
this adds nothing and is the same as `neuralgentics serve`.

    python tests/ui/serve_app.py PORT
"""

from __future__ import annotations

import sys

import uvicorn


def _mounted(app, route_name: str) -> bool:
    from starlette.routing import NoMatchFound

    try:
        app.url_path_for(route_name)
    except NoMatchFound:
        return False
    return True


def build():
    from neuralgentics.memini import app as memini_app
    from neuralgentics.ui import PUBLIC_PATHS, router

    app = memini_app.create_app()
    if not _mounted(app, "ui_index"):
        app.include_router(router)
        # the page and its assets carry no data; the integrator opens them the same way
        memini_app.OPEN_PATHS.update(PUBLIC_PATHS)
    if not _mounted(app, "list_projects"):
        from neuralgentics.memini.indexer.routes import create_router

        # drop the 501 placeholder so the indexer's own GET /project/index answers
        app.router.routes[:] = [r for r in app.router.routes if getattr(r, "path", None) != "/project/index"]
        app.include_router(create_router())
    return app


if __name__ == "__main__":
    uvicorn.run(build(), host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
