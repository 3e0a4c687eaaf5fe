"""The trust policy a recall applied, as its diagnostics state it (pure).

Floors of similarity and confidence, the framing cap, which trust levels a belief and a quote may
carry, the sensitive domains admitted, and how many candidates each gate kept out.
"""

from __future__ import annotations

from collections.abc import Sequence

from beliefs.confidence import HYPOTHETICAL_CONFIDENCE_CAP
from sidecar.recall.config import RecallConfig
from sidecar.recall.diagnostics import TrustPolicyView
from sidecar.recall.exclusions import exclusion_counts
from sidecar.recall.models import RecallRequest


def trust_policy(
    request: RecallRequest,
    config: RecallConfig,
    domains: frozenset[str],
    suppressed: Sequence[tuple[str, str]],
    impersonal: bool = False,
) -> TrustPolicyView:
    """The trust policy this recall applied, as diagnostics state it."""
    quotes = ["trusted", "caution", "untrusted"] if request.include_untrusted_evidence else ["trusted"]
    return TrustPolicyView(
        similarity_floor=config.min_similarity,
        keyword_similarity_floor=config.keyword_min_similarity,
        speaks_of_user=not impersonal,
        impersonal_similarity_floor=max(config.impersonal_min_similarity, config.min_similarity),
        asked_similarity=config.asked_min_similarity,
        confidence_floor=config.confidence_floor,
        framing_cap=HYPOTHETICAL_CONFIDENCE_CAP,
        beliefs_admitted=["trusted", "caution"],
        quotes_admitted=quotes,
        sensitive_admitted=list(request.include_sensitive),
        request_domains=sorted(domains),
        superseded_episodes=request.superseded_episodes,
        exclusions=exclusion_counts(suppressed),
    )
