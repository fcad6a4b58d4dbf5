"""Provenance and the history gate as request fields: bounded, empty refused, and the CLI's
`BRANCH:N` form parsed or refused naming what it expects."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from tracetax.spec.provenance import COMMIT_CHARS, HistoryGate, Provenance


def test_provenance_is_all_optional() -> None:
    assert Provenance().model_dump(exclude_none=True) == {}


def test_provenance_refuses_empty_too_long_and_unknown_fields() -> None:
    with pytest.raises(ValidationError) as empty:
        Provenance(branch="  ")
    assert empty.value.errors()[0]["loc"] == ("branch",)
    with pytest.raises(ValidationError) as long:
        Provenance(commit="a" * (COMMIT_CHARS + 1))
    assert long.value.errors()[0]["loc"] == ("commit",)
    with pytest.raises(ValidationError) as unknown:
        Provenance.model_validate({"sha": "abc"})
    assert unknown.value.errors()[0]["type"] == "extra_forbidden"


@pytest.mark.parametrize(
    ("text", "branch", "points"), [("main:10", "main", 10), ("release/1.2:3", "release/1.2", 3), ("a:b:2", "a:b", 2)]
)
def test_history_gate_parses_branch_and_points(text: str, branch: str, points: int) -> None:
    gate = HistoryGate.parse(text, max_growth_pct=2.5)
    assert (gate.branch, gate.points, gate.max_growth_pct) == (branch, points, 2.5)


@pytest.mark.parametrize("text", ["main", "main:", ":10", "main:ten", "main:-3"])
def test_history_gate_refuses_other_forms_naming_the_expected_one(text: str) -> None:
    with pytest.raises(ValueError, match=r"BRANCH:N, e\.g\. main:10"):
        HistoryGate.parse(text)


@pytest.mark.parametrize("text", ["main:1", "main:101"])
def test_history_gate_refuses_points_out_of_range(text: str) -> None:
    with pytest.raises(ValueError, match="N from 2 to 100"):
        HistoryGate.parse(text)


def test_history_gate_refuses_no_growth() -> None:
    with pytest.raises(ValueError, match="max_growth_pct"):
        HistoryGate.parse("main:10", max_growth_pct=0)
