"""The one redaction (issue 40, item 1): which names carry a credential, their values answered
as "***" at any depth with the names kept, and the stored values filled back into a spec
submitted again from a redacted answer."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tracetax.spec.redaction import (
    REDACTED,
    UnfilledSecretsError,
    fill_secrets,
    is_secret_name,
    redact,
    redact_at,
    redact_json,
    redacted_locations,
)


def spec_with_secrets() -> dict[str, Any]:
    return {
        "name": "with secrets",
        "load": {
            "rate": 10,
            "headers": {"Authorization": "Bearer abc", "Accept": "text/plain", "X-Api-Key": "k1"},
            "query": {"api_key": "q1", "page": "2"},
        },
        "configurations": [
            {"name": "none", "env": {}},
            {
                "name": "batch",
                "env": {"OTEL_EXPORTER_OTLP_HEADERS": "k=v", "OTEL_BSP_MAX_QUEUE_SIZE": "2048"},
            },
        ],
    }


@pytest.mark.parametrize(
    "name",
    [
        "Authorization",
        "authorization",
        "Proxy-Authorization",
        "Cookie",
        "Set-Cookie",
        "X-Api-Key",
        "X-Auth-Token",
        "X-CSRF-Token",
        "OTEL_EXPORTER_OTLP_HEADERS",
        "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
        "MY_SERVICE_TOKEN",
        "DB_PASSWORD",
        "AWS_SECRET_ACCESS_KEY",
        "LAB_API_KEY",
        "GOOGLE_APPLICATION_CREDENTIALS",
    ],
)
def test_names_that_carry_a_credential_are_secret(name: str) -> None:
    assert is_secret_name(name)


@pytest.mark.parametrize(
    "name",
    ["Accept", "Content-Type", "OTEL_BSP_MAX_QUEUE_SIZE", "OTEL_TRACES_SAMPLER", "LAB_MEMORY_LIMIT_MIB", "page"],
)
def test_ordinary_names_are_not(name: str) -> None:
    assert not is_secret_name(name)


def test_secret_values_are_hidden_and_their_names_kept() -> None:
    spec = spec_with_secrets()
    redacted = redact(spec)
    assert redacted["load"]["headers"] == {"Authorization": REDACTED, "Accept": "text/plain", "X-Api-Key": REDACTED}
    assert redacted["load"]["query"] == {"api_key": REDACTED, "page": "2"}
    assert redacted["configurations"][1]["env"] == {
        "OTEL_EXPORTER_OTLP_HEADERS": REDACTED,
        "OTEL_BSP_MAX_QUEUE_SIZE": "2048",
    }
    assert spec == spec_with_secrets()  # the original is untouched


def test_a_spec_nested_anywhere_is_redacted() -> None:
    answer = {"spec": spec_with_secrets(), "rungs": [{"signature": {"env": {"DB_PASSWORD": "p"}}}]}
    assert redact(answer)["rungs"][0]["signature"]["env"] == {"DB_PASSWORD": REDACTED}
    assert redact(answer)["spec"]["load"]["headers"]["Authorization"] == REDACTED


def test_an_object_under_a_secret_name_is_walked_into_not_hidden() -> None:
    assert redact({"headers": {"Accept": "a"}, "signature": {"service": "go"}}) == {
        "headers": {"Accept": "a"},
        "signature": {"service": "go"},
    }


def test_a_redacted_spec_is_filled_from_the_stored_one() -> None:
    stored = spec_with_secrets()
    assert fill_secrets(redact(stored), stored) == stored


def test_configurations_are_matched_by_name_when_reordered() -> None:
    stored = spec_with_secrets()
    submitted = redact(stored)
    submitted["configurations"].reverse()
    filled = fill_secrets(submitted, stored)
    assert filled["configurations"][0]["env"]["OTEL_EXPORTER_OTLP_HEADERS"] == "k=v"


def test_a_value_given_anew_is_kept() -> None:
    stored = spec_with_secrets()
    submitted = redact(stored)
    submitted["load"]["headers"]["Authorization"] = "Bearer new"
    assert fill_secrets(submitted, stored)["load"]["headers"]["Authorization"] == "Bearer new"


def test_a_redacted_value_with_nothing_stored_is_named() -> None:
    stored = spec_with_secrets()
    submitted = redact(stored)
    submitted["configurations"][1]["env"]["SERVICE_TOKEN"] = REDACTED
    with pytest.raises(UnfilledSecretsError) as raised:
        fill_secrets(submitted, stored)
    assert raised.value.locations == [("configurations", 1, "env", "SERVICE_TOKEN")]


def test_without_a_stored_spec_every_redacted_value_is_named() -> None:
    assert redacted_locations(redact(spec_with_secrets())) == [
        ("load", "headers", "Authorization"),
        ("load", "headers", "X-Api-Key"),
        ("load", "query", "api_key"),
        ("configurations", 1, "env", "OTEL_EXPORTER_OTLP_HEADERS"),
    ]
    assert redacted_locations(spec_with_secrets()) == []


def test_stars_under_an_ordinary_name_are_a_value_like_any_other() -> None:
    assert redacted_locations({"load": {"headers": {"Accept": REDACTED}}}) == []


def test_a_value_found_at_a_secret_location_is_hidden() -> None:
    assert redact_at(("body", "configurations", 1, "env", "SERVICE_TOKEN"), "t0ken") == REDACTED
    assert redact_at(("body", "load", "headers"), {"Cookie": "c", "Accept": "a"}) == {"Cookie": REDACTED, "Accept": "a"}
    assert redact_at(("body", "load", "rate"), "fast") == "fast"


def test_a_json_answer_is_redacted_and_one_without_secrets_passes_as_it_is() -> None:
    answer = json.dumps({"spec": spec_with_secrets(), "rate": 1.5}, separators=(",", ":")).encode()
    assert json.loads(redact_json(answer)) == {"spec": redact(spec_with_secrets()), "rate": 1.5}
    plain = b'{"headers":{"Accept":"text/plain"},"status":"queued","histogram":"a2V5OiJ0b2tlbiI="}'
    assert redact_json(plain) is plain


def test_an_indented_json_answer_is_redacted_too() -> None:
    answer = json.dumps({"headers": {"Cookie": "c0okie"}}, indent=2).encode()
    assert b"c0okie" not in redact_json(answer)
