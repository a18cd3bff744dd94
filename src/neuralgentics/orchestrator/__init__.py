"""The orchestrator: routing matrix, skills, context packages and the 8-step Boomerang protocol.

`service.Orchestrator` is the one object the CLI and the HTTP routes call; importing this
package loads nothing else, so a caller that needs only skills (`skills`) stays light.
"""
