"""How a round reads a service's exit after SIGTERM: only a failure during a measured phase
fails a round; every other way out is kept and said."""

from __future__ import annotations

import signal

import pytest

from tracetax.engine.loadgen import LoadError, OpenPhaseResult
from tracetax.engine.round import shutdown_record
from tracetax.subjects.service.runner import _resource_attributes, require_answers


def test_a_clean_exit_flushed() -> None:
    assert shutdown_record(0, 20) == {
        "exit_code": 0,
        "clean": True,
        "flushed": True,
        "note": "exited cleanly after SIGTERM",
    }


def test_sigterms_default_action_is_kept_and_says_the_sdk_may_not_have_flushed() -> None:
    record = shutdown_record(-signal.SIGTERM, 20)
    assert record["clean"] is False and record["flushed"] is False
    assert "default action" in record["note"]


def test_killed_after_the_grace_period_names_it() -> None:
    assert "within 20 s" in shutdown_record(-signal.SIGKILL, 20)["note"]


def test_a_jvm_style_143_leaves_the_flush_unknown() -> None:
    record = shutdown_record(143, 20)
    assert record["flushed"] is None and "143" in record["note"]


def test_any_other_code_is_kept_with_its_code() -> None:
    assert "code 3" in shutdown_record(3, 20)["note"]


def test_a_phase_where_no_request_succeeded_fails_naming_what_the_service_answered() -> None:
    refused = OpenPhaseResult(0, 1000, 5.0, 0.0, "", {}, [], status_codes={"400": 1000})
    with pytest.raises(LoadError, match=r"HTTP 400 x1000.*load.path and load.query"):
        require_answers(refused, "the measured phase")
    require_answers(OpenPhaseResult(10, 2, 5.0, 2.0, "", {}, [], status_codes={"200": 10, "500": 2}), "warm-up")


def test_resource_attributes_are_percent_encoded() -> None:
    # The SDKs decode these values; a raw % (preset sampled-10%) is a bad escape a service refuses.
    value = _resource_attributes({"OTEL_RESOURCE_ATTRIBUTES": "team=a"}, "run-1", "sampled-10%")
    assert value == "team=a,tracetax.run.id=run-1,tracetax.config=sampled-10%25"
