"""The local dashboard: static pages under /ui served by memini-core, plus the few read-only
JSON routes the pages need that memini-core's API does not have (broker proxy, audit, index
details). Mount with ``app.include_router(router)``; see docs/dashboard.md."""

from neuralgentics.ui.routes import PUBLIC_PATHS, router

__all__ = ["PUBLIC_PATHS", "router"]
