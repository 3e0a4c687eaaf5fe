"""Policy-gated recall: scope before score, currency, blended ranking, budget, audit of reads.

    candidates  dense (vector index) + keyword (SQL full text), over beliefs and episodes; relevance
                is the weighted mean of cosine and per-query normalised keyword score (fusion)
    hydrate     from SQL, the authority, with scope and currency in the query
    select      pure: similarity floor (relevance first), live intent, contexts, topic, conflicts,
                constraints, profile block, scoring, budget, order; open contested slots reported
                in conflicts, never recalled
    episodes    pure: trust, superseded beliefs labelled, named speakers (people), dates (temporal),
                neighbouring turns; a quote of a kept belief's turn is carried on it (carried_quotes);
                one ranking and budget with the beliefs (evidence)
    record      access counts and an audit record per recall, batched off the hot path
"""
