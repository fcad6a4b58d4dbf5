"""Schemathesis against the app in-process (ASGI): every operation but the SSE stream, with
generated valid and invalid input, must never answer 5xx, and every answer must be one the
OpenAPI documents: its status code, its content type and its body's schema.

Offline: a temporary database and state directory, and Tempo, Loki, the metrics store and the
Collector on closed ports, so routes that need them answer their documented 502/503.

Experiments it creates are queued but never run: the app is built with run_experiments=False,
which leaves the queue's worker unstarted. That is the honest choice here rather than a spec
that fails fast: generated specs include `{"kind": "command", "argv": [...]}` services, and a
worker would execute those generated argv on this machine (and a demo service would start a
real measurement). What the worker does is covered by the engine's own tests.

A few stored experiments and checks (a failed run, a queued one) are seeded, and their ids
are substituted for generated ones part of the time, so the routes' 200 answers on real rows
are checked too, not only their 404s.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import hypothesis.strategies as st
import pytest
import schemathesis
from fastapi import FastAPI
from hypothesis import HealthCheck, settings
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)

from tests.api.conftest import go_spec, offline_headers
from tracetax.core.config import Settings
from tracetax.db.models import Check, Experiment, Round
from tracetax.db.session import make_engine, session_factory
from tracetax.main import create_app
from tracetax.spec.service import ExperimentSpec

pytestmark = pytest.mark.schemathesis

# Per operation (about 20 of them): enough to find the classes of bug this is for (a type the
# code did not expect, an undocumented status) in about a minute. For a deeper run:
# TRACETAX_SCHEMATHESIS_EXAMPLES=500 uv run pytest tests/api/test_schemathesis.py
MAX_EXAMPLES = int(os.environ.get("TRACETAX_SCHEMATHESIS_EXAMPLES", "40"))

# Stored rows whose ids replace generated ones part of the time (see `seed`).
KNOWN = {
    "experiment_id": ["seeded-failed", "seeded-queued"],
    "check_id": ["seeded-check-failed", "seeded-check-queued"],
    "configuration": ["none", "batch-default"],
}

# The operations come from the app's own OpenAPI, built without starting anything. (The lazy
# `schemathesis.pytest.from_fixture` loader does not work with pytest 9.2, so the schema is
# loaded here; each test sends its requests to its own offline app, passed as `app=`.)
_DOCUMENT = create_app(Settings(database_url="sqlite://", frontend_dist=Path("/nonexistent"))).openapi()
# The 5xx answers that are by design, and documented, where the route needs a backend that is
# down here: health is 503 with its report, Tempo's and Loki's reads are 502 naming the failure.
# Any other 5xx, and these anywhere else, fail. (An explicit config: no schemathesis.toml is
# looked for.)
_CONFIG = schemathesis.Config.from_str(
    """
[[operations]]
include-path = "/api/health"
checks.not_a_server_error.expected-statuses = ["2xx", "3xx", "4xx", 503]

[[operations]]
include-path-regex = "^/api/v1/(traces/[^/]+|experiments/[^/]+/logs)$"
checks.not_a_server_error.expected-statuses = ["2xx", "3xx", "4xx", 502]
"""
)
schema = schemathesis.openapi.from_dict(_DOCUMENT, config=_CONFIG).exclude(path_regex=r"/events$")
schema.app = create_app(Settings(database_url="sqlite://", frontend_dist=Path("/nonexistent")))  # never started:
# it only tells schemathesis to use its in-process ASGI transport.


@schema.hook
def flatmap_path_parameters(
    context: Any, path_parameters: dict[str, Any] | None
) -> st.SearchStrategy[dict[str, Any] | None]:
    names = [name for name in path_parameters or {} if name in KNOWN]
    if not names:
        return st.just(path_parameters)
    stored = st.fixed_dictionaries({name: st.sampled_from(KNOWN[name]) for name in names})
    return st.one_of(st.just(path_parameters), stored.map(lambda ids: {**(path_parameters or {}), **ids}))


def seed(settings: Settings) -> None:
    """A run whose every round failed, one still queued (queued again at start-up), a check
    on each."""
    assert settings.database_url is not None
    database = make_engine(settings.database_url)
    spec = ExperimentSpec.model_validate(go_spec()).model_dump(mode="json")
    with session_factory(database)() as session:
        session.add_all(
            [
                Experiment(
                    id="seeded-failed",
                    name="failed run",
                    status="failed",
                    service="go",
                    spec=spec,
                    error="no round completed for: none, batch-default",
                ),
                Experiment(id="seeded-queued", name="waiting", status="queued", service="go", spec=spec),
                *(
                    Round(
                        experiment_id="seeded-failed",
                        round_index=0,
                        order_index=index,
                        configuration=name,
                        run_id=f"seeded-run-{index}",
                        status="failed",
                        error="the service never became healthy",
                    )
                    for index, name in enumerate(["none", "batch-default"])
                ),
            ]
        )
        session.flush()  # checks have no relationship to order their inserts after experiments
        session.add_all(
            [
                Check(id="seeded-check-failed", experiment_id="seeded-failed", budget={"p99_overhead_pct": 10}),
                Check(id="seeded-check-queued", experiment_id="seeded-queued", budget={"p99_overhead_pct": 10}),
            ]
        )
        session.commit()
    database.dispose()


@pytest.fixture
def app(offline_settings: Settings) -> Iterator[FastAPI]:
    seed(offline_settings)
    # run_experiments=False: see the module's docstring.
    yield create_app(offline_settings, run_experiments=False)


@schema.parametrize()
@settings(
    max_examples=MAX_EXAMPLES,
    deadline=None,
    database=None,  # nothing written into the repository
    suppress_health_check=list(HealthCheck),
)
def test_api_answers_as_documented(case: schemathesis.Case, app: FastAPI) -> None:
    # Content-Length is the HTTP client's to set, not an input of any operation: a generated one
    # that is not a number is refused before the API (BodyLimit's 400), whatever the route.
    if case.headers:
        case.headers = {name: value for name, value in case.headers.items() if name.lower() != "content-length"}
    case.call_and_validate(
        app=app,
        headers=offline_headers(),
        checks=[not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance],
    )
