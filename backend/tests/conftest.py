"""Session fixtures: the real native stack, started once per test session, and the databases
the repository and API tests run against.

If a complete stack is already running (for example after `make up`) it is reused and left
running; otherwise one is started in a temporary state directory and stopped at the end.

`databases` is parametrized: every test that uses it runs on SQLite and again on PostgreSQL
(marked `postgres`; `-m "not postgres"` leaves those out), whose server is started the first
time a test needs it and stopped at the end of the session.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests import postgres
from tests.databases import Databases, PostgresDatabases, SqliteDatabases
from tests.stack_experiments import SharedExperiments
from tracetax.native_stack.native import NativeStack
from tracetax.native_stack.supervisor import format_table, http_ready, port_is_free
from tracetax.native_stack.watch import WATCHER
from tracetax.system import procfs
from tracetax.system.placement import Placement


def _all_ready(stack: NativeStack) -> bool:
    return all(http_ready(component.ready_url)[0] for component in stack.components)


MEASURING_MARKERS = ("stack", "services")


@pytest.fixture(scope="session", autouse=True)
def test_runner_off_the_service_cores(request: pytest.FixtureRequest) -> None:
    """The test runner is something `make test` starts, like the stack: keep it off the
    measured service's cores, or the isolation check flags its rounds (rightly). A session
    that measures nothing (`make test-backend`'s first pass, `make test-unit`) keeps every
    core: pinned, its pytest-xdist workers would share one."""
    measures = any(item.get_closest_marker(marker) for item in request.session.items for marker in MEASURING_MARKERS)
    stack_cpus = Placement.for_this_machine().stack_cpus
    if measures and stack_cpus:
        procfs.pin_all_threads(stack_cpus)


@pytest.fixture(scope="session")
def native_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[NativeStack]:
    running = NativeStack(report=lambda _: None)
    if _all_ready(running) and all(running.supervisor.running_pid(c.name) for c in running.components):
        yield running  # the user's `make up` stack: reuse, do not stop
        return
    state: Path = tmp_path_factory.mktemp("stack-state")
    stack = NativeStack(state=state, report=lambda _: None)
    try:
        stack.up()
    except Exception as error:
        stack.down()
        pytest.fail(f"could not start the native stack for the tests:\n{error}")
    try:
        yield stack
    finally:
        stack.down()
        # The watcher too: it would start again what `down` stopped.
        leftovers = [
            name for name in (*(c.name for c in stack.components), WATCHER) if stack.supervisor.running_pid(name)
        ]
        assert not leftovers, f"still running after down: {leftovers}\n{format_table(stack.status())}"
        # `make down` leaves no listener: not Mimir's memberlist or gRPC port, not a child's.
        listening = [(c.name, port) for c in stack.components for port in c.ports if not port_is_free(port)]
        assert not listening, f"still listening after down: {listening}"


@pytest.fixture(scope="session")
def shared_experiments(native_stack: NativeStack) -> SharedExperiments:
    """Experiments several stack tests assert different things of, run once a session
    (tests/stack_experiments.py)."""
    return SharedExperiments(native_stack)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[postgres.PostgresServer]:
    # A yield fixture: its teardown also runs when the session ends on a failure or Ctrl-C.
    try:
        with postgres.temporary_server() as server:
            yield server
    except postgres.PostgresUnavailableError as error:
        pytest.fail(f"could not start PostgreSQL for the tests: {error}")


@pytest.fixture(scope="session", params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def databases(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Databases:
    if request.param == "sqlite":
        return SqliteDatabases(tmp_path_factory.mktemp("sqlite"))
    return PostgresDatabases(request.getfixturevalue("postgres_server"))


@pytest.fixture
def empty_database_url(databases: Databases, tmp_path: Path) -> Iterator[str]:
    url = databases.empty(tmp_path)
    yield url
    databases.release(url)


@pytest.fixture
def migrated_database_url(databases: Databases, tmp_path: Path) -> Iterator[str]:
    url = databases.migrated(tmp_path)
    yield url
    databases.release(url)
