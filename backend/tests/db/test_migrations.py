"""The Alembic migrations on SQLite and PostgreSQL (the `databases` fixture runs each test on
both): they build exactly the schema the models declare, and go down and up again. The app
only ever migrates (never create_all), so this is the schema it runs on."""

from __future__ import annotations

from typing import Any

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect

from tests.postgres import SUPERUSER, PostgresServer
from tracetax.db.models import Base
from tracetax.db.session import alembic_config, make_engine, migrate


def schema_drift(url: str) -> list[Any]:
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            context = MigrationContext.configure(connection, opts={"compare_type": True})
            return list(compare_metadata(context, Base.metadata))
    finally:
        engine.dispose()


def test_the_migrated_schema_is_the_models(empty_database_url: str) -> None:
    migrate(empty_database_url)
    assert schema_drift(empty_database_url) == []


def test_migrations_go_down_to_nothing_and_up_again(empty_database_url: str) -> None:
    migrate(empty_database_url)
    command.downgrade(alembic_config(empty_database_url), "base")
    engine = make_engine(empty_database_url)
    try:
        assert inspect(engine).get_table_names() == ["alembic_version"]
    finally:
        engine.dispose()
    migrate(empty_database_url)
    assert schema_drift(empty_database_url) == []


@pytest.mark.postgres
def test_a_url_with_a_percent_encoded_password_migrates(postgres_server: PostgresServer) -> None:
    """A password with @, : or / must be percent-encoded in the URL the Helm chart takes;
    Alembic's configuration read a % as interpolation syntax and refused the URL."""
    url = postgres_server.create_database("percent_encoded")
    try:
        # Trust authentication: the password is parsed and sent, not checked.
        migrate(url.replace(f"{SUPERUSER}@", f"{SUPERUSER}:p%40ss%25word@"))
        assert schema_drift(url) == []
    finally:
        postgres_server.drop_database("percent_encoded")
