"""Policy-gated recall: scope before score, currency, blended ranking, budget, audit of reads.

    candidates  dense (vector index) + keyword (SQL full text), fused by reciprocal rank
    hydrate     from SQL, the authority, with scope and currency in the query
    select      pure: live intent, contexts, topic, conflicts, constraints, profile block, scoring,
                budget, order; open contested slots reported in conflicts, never recalled
    record      access counts and an audit record per recall, batched off the hot path
"""
