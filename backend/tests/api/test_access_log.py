"""The login link's token never reaches the access log."""

from __future__ import annotations

import logging

import pytest

from tracetax.api.access_log import ACCESS_LOGGER, RedactTokenFilter, redact_token, redact_tokens_in_access_log


def test_the_token_in_a_query_is_redacted_and_the_rest_kept() -> None:
    assert redact_token("/?token=s3cr3t") == "/?token=<redacted>"
    assert redact_token("/experiments/1?tab=cost&token=abc#x") == "/experiments/1?tab=cost&token=<redacted>#x"
    assert redact_token("/api/v1/experiments?limit=5") == "/api/v1/experiments?limit=5"


def test_an_access_record_is_logged_without_the_token(caplog: pytest.LogCaptureFixture) -> None:
    redact_tokens_in_access_log()
    redact_tokens_in_access_log()  # idempotent: one filter however often the app is built
    logger = logging.getLogger(ACCESS_LOGGER)
    assert sum(isinstance(f, RedactTokenFilter) for f in logger.filters) == 1
    with caplog.at_level(logging.INFO, logger=ACCESS_LOGGER):
        logger.info('%s - "%s %s HTTP/%s" %d', "127.0.0.1:5000", "GET", "/?token=s3cr3t-token", "1.1", 200)
    assert "s3cr3t-token" not in caplog.text
    assert "/?token=<redacted>" in caplog.text
