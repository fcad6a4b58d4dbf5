"""A URL as TraceTax shows it: never its credentials (issue 40)."""

from __future__ import annotations

import pytest

from tracetax.core.urls import redact_url, redact_urls


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("http://user:hunter2@tempo:3200", "http://tempo:3200"),
        ("https://user@loki.internal:3100/", "https://loki.internal:3100/"),
        ("http://[::1]:9009/prometheus", "http://[::1]:9009/prometheus"),
        ("http://a:b@[::1]:9009", "http://[::1]:9009"),
        ("http://mimir:9009/?token=hunter2&x=1", "http://mimir:9009/?token=***&x=1"),
        (
            "http://m/?api-key=hunter2&X-Amz-Signature=s3cr3t&sig=abc",
            "http://m/?api-key=***&X-Amz-Signature=***&sig=***",
        ),
        ("http://m/?access_token=a&page=2#top", "http://m/?access_token=***&page=2#top"),
        ("http://127.0.0.1:3200", "http://127.0.0.1:3200"),
        ("http://127.0.0.1:13133/", "http://127.0.0.1:13133/"),
    ],
)
def test_a_url_is_shown_without_credentials(url: str, shown: str) -> None:
    assert redact_url(url) == shown


def test_a_url_urllib_cannot_parse_still_loses_its_userinfo() -> None:
    assert redact_url("http://user:hunter2@[::1") == "http://[::1"


def test_urls_inside_a_text_are_redacted_and_the_rest_kept() -> None:
    text = "tempo: readiness http://u:hunter2@tempo:3200/ready failed (see 'http://x/?password=p')"
    assert redact_urls(text) == "tempo: readiness http://tempo:3200/ready failed (see 'http://x/?password=***')"
