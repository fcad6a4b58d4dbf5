"""The fixtures the fake subject runs with: the offline app (tests/api) and a migrated
database for the engine alone (tests/engine)."""

from tests.api.conftest import client, offline_settings  # noqa: F401 - fixtures
from tests.engine.test_stack_health import sessions  # noqa: F401 - a fixture
