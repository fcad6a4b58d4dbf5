"""The history metrics: read from the registered subjects when first asked, each once."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from typing import ClassVar

import pytest

from tests.subjects.fake.subject import FAKE, FakeJudgement
from tracetax.app.history import UnknownMetricError, history_metrics, metric_text
from tracetax.history.metrics import HistoryMetricText
from tracetax.subjects.registry import SUBJECTS, registered

SPANS_TEXT = HistoryMetricText("fake spans", "spans", None)


class MetricJudgement(FakeJudgement):
    history_metric_text: ClassVar[dict[str, HistoryMetricText]] = {"fake_spans": SPANS_TEXT}


def test_every_subjects_metrics_in_the_registrys_order() -> None:
    expected = [name for subject in SUBJECTS.values() for name in subject.history_metric_text]
    assert list(history_metrics()) == expected
    assert len(expected) == len(set(expected))  # no metric is two subjects'
    assert metric_text("p99").unit == "pct"
    assert metric_text("lost_spans").unit == "spans"


def test_an_import_builds_nothing() -> None:
    code = "from tracetax.app import history; print(history._merged.cache_info().currsize)"
    out = subject_process(code)
    assert out == "0"


def subject_process(code: str) -> str:
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    return result.stdout.strip()


def test_a_subject_registered_later_brings_its_metrics_and_takes_them_away() -> None:
    with registered(replace(FAKE, name="fake-metrics", judgement=MetricJudgement())):
        assert metric_text("fake_spans") == SPANS_TEXT
        assert list(history_metrics())[-1] == "fake_spans"
    with pytest.raises(UnknownMetricError, match="unknown metric 'fake_spans'; use one of: p50, p99"):
        metric_text("fake_spans")


def test_a_metric_two_subjects_mean_differently_is_refused() -> None:
    class Clash(FakeJudgement):
        history_metric_text: ClassVar[dict[str, HistoryMetricText]] = {"p99": SPANS_TEXT}

    with (
        registered(replace(FAKE, name="fake-clash", judgement=Clash())),
        pytest.raises(ValueError, match="history metric 'p99' means two things"),
    ):
        history_metrics()
