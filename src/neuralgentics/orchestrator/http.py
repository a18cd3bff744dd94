"""HTTP routes of the orchestrator, mounted by memini-core under /orchestrator."""

from fastapi import APIRouter

router = APIRouter(prefix="/orchestrator", tags=["orchestrator"])
