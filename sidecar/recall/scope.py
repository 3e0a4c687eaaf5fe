"""The scope of a recall: whose memories it may read, decided by the key, never widened by the body.

The tenant comes from the API key; an agent-bound key forces its agent (a body agent may only repeat
it); the user and workspace come from the request.
"""

from __future__ import annotations

from sidecar.auth import Principal
from sidecar.recall.models import RecallRequest
from sinks.recall import RecallScope


def resolve_scope(principal: Principal, request: RecallRequest) -> RecallScope:
    """Tenant from the key; an agent-bound key forces its agent, a body agent may only repeat it.

    `request.topic` is not pushed into the candidate queries: it narrows in `select`
    (`policy.outside_topic`), where a value of a context the topic names is still seen.
    """
    return RecallScope(
        tenant_id=principal.tenant_id,
        user_id=request.user_id,
        agent_id=principal.acting_agent(request.agent_id),
        workspace_id=request.workspace_id,
    )
