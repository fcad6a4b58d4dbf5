"""Response models of the history routes: a configuration's series of overheads per commit, a
service's summary, and a check's verdicts against its branch's history."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class HistoryPoint(BaseModel):
    """One check of the series: where it came from and its overhead with the 95% interval
    (None where it was not measured, never 0)."""

    model_config = ConfigDict(from_attributes=True)

    check_id: str
    experiment_id: str
    created_at: datetime
    commit: str | None
    branch: str | None
    pull_request: str | None
    ci_run_url: str | None
    repository: str | None
    machine: str | None = Field(description="The machine fingerprint the check ran on, when recorded.")
    verdict: Literal["pass", "fail", "error"] | None = Field(description="The check's own same-run verdict.")
    estimate: float | None
    low: float | None
    high: float | None


class HistoryChangePoint(BaseModel):
    """A shift of the series, named by the first check after it, with the shift's 95% interval."""

    model_config = ConfigDict(from_attributes=True)

    index: int = Field(description="The position in `points` of the first check after the change.")
    check_id: str
    commit: str | None
    before: float
    after: float
    shift: float
    low: float
    high: float
    size_pct: float | None = Field(
        description="The shift's relative size: points of % for an overhead in %, else % of the level before it "
        "(None from a level of 0)."
    )
    material: bool = Field(
        description="Whether the shift reaches `material_pct`: a significant shift below it is real but too small "
        "to matter, listed and not drawn."
    )


class HistorySeries(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    service: str
    configuration: str
    metric: str
    unit: Literal["pct", "bytes", "usd", "spans"]
    branch: str | None
    machine: str | None
    budget: float | None = Field(description="The latest check's budget line for this metric, in its unit.")
    points: list[HistoryPoint] = Field(description="Oldest first.")
    change_points: list[HistoryChangePoint]
    note: str | None = None
    material_pct: float = Field(description="The relative size below which a change point is too small to matter.")


class ConfigurationHistory(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    configuration: str
    checks: int = Field(description="The checks read (the newest, up to the trend's length).")
    latest: dict[str, HistoryPoint] = Field(description="Per metric, the latest check's point.")
    trend: dict[str, list[float | None]] = Field(description="Per metric, the recent estimates, oldest first.")
    change_points: dict[str, int] = Field(
        description="Per metric, the change points among those checks large enough to matter (material)."
    )


class ServiceHistory(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    service: str
    configurations: list[ConfigurationHistory]


class HistoryJudgementModel(BaseModel):
    """A check's verdict against its branch's history on one metric (`--against-history`)."""

    model_config = ConfigDict(from_attributes=True)

    metric: str
    verdict: Literal["pass", "fail", "inconclusive", "no_history"]
    growth: float | None = Field(description="The growth against the history, percentage points.")
    low: float | None
    high: float | None
    points: int = Field(description="The history's points it was judged against.")
    reason: str
