"""What a recall lists as kept out: one entry per candidate, its reason coded, the sweep after the gates."""

from __future__ import annotations

from sidecar.recall.carried_quotes import CARRIED_WHY
from sidecar.recall.exclusions import (
    FILTERED,
    NOT_SELECTED,
    exclusion_counts,
    first_reasons,
    reason_of,
    unaccounted,
)
from sidecar.recall.folded_beliefs import FOLDED_WHY, TWIN_WHY


def test_a_candidate_two_steps_kept_out_is_listed_once_with_the_first_reason() -> None:
    listed = [
        ("m1", "sensitive: health outside this request's domain"),
        ("e1", "under the similarity floor (0.21 < 0.30)"),
        ("m1", "over the token budget"),
        ("e2", "over the limit"),
        ("e1", "quoted as context of m2"),
    ]
    once = first_reasons(listed)
    assert once == [listed[0], listed[1], listed[3]]
    assert [reason_of(why) for _, why in once] == ["sensitive", "similarity_floor", "limit"]
    assert exclusion_counts(once) == {"limit": 1, "sensitive": 1, "similarity_floor": 1}


def test_first_reasons_keeps_a_list_without_repeats_as_it_is() -> None:
    listed = [("b", "over the limit"), ("a", "over the token budget")]
    assert first_reasons(listed) == listed
    assert first_reasons([]) == []


def test_the_sweep_lists_what_no_gate_listed_once() -> None:
    swept = unaccounted(["m1", "m2", "m2", "m3", "e1"], answered=["m1"], listed=["m3"], filtered=["e1"])
    assert swept == [("m2", NOT_SELECTED), ("e1", FILTERED)]


def test_a_folded_or_carried_item_is_listed_under_its_own_reason_code() -> None:
    assert reason_of(CARRIED_WHY.format(belief="m1")) == "carried_as_evidence"
    assert reason_of(FOLDED_WHY.format(quote="e1")) == reason_of(TWIN_WHY.format(belief="m2")) == "folded"
