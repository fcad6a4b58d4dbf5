"""The databases the repository and API tests run against: SQLite files, and PostgreSQL
databases on the session's throwaway server (tests/postgres.py). Each test gets a database of
its own, either empty or already at the Alembic head (a copy of one migrated once a session:
migrating takes about half a second)."""

from __future__ import annotations

import itertools
import shutil
from pathlib import Path
from typing import Protocol

from tests.postgres import PostgresServer
from tracetax.db.session import migrate


class Databases(Protocol):
    def empty(self, directory: Path) -> str:
        """The URL of a new, empty database (`directory`: the test's own, for files)."""

    def migrated(self, directory: Path) -> str:
        """The URL of a new database with every migration applied."""

    def release(self, url: str) -> None:
        """Drop a database the test is done with."""


class SqliteDatabases:
    def __init__(self, scratch: Path) -> None:
        self.template = scratch / "template.db"

    def empty(self, directory: Path) -> str:
        return f"sqlite:///{directory / 'tracetax.db'}"

    def migrated(self, directory: Path) -> str:
        if not self.template.exists():
            migrate(f"sqlite:///{self.template}")
        shutil.copy(self.template, directory / "tracetax.db")
        return self.empty(directory)

    def release(self, url: str) -> None:
        pass  # the file goes with the test's tmp_path


class PostgresDatabases:
    TEMPLATE = "tracetax_template"

    def __init__(self, server: PostgresServer) -> None:
        self.server = server
        self.names = (f"tracetax_{number}" for number in itertools.count())
        self.template_ready = False

    def empty(self, directory: Path) -> str:
        return self.server.create_database(next(self.names))

    def migrated(self, directory: Path) -> str:
        if not self.template_ready:
            # The migrations run for real (not create_all), once; each test gets a copy
            # (CREATE DATABASE ... TEMPLATE copies its files).
            migrate(self.server.create_database(self.TEMPLATE))
            self.template_ready = True
        return self.server.create_database(next(self.names), template=self.TEMPLATE)

    def release(self, url: str) -> None:
        # Dropped at once: each is several megabytes, and there are about a hundred a session.
        self.server.drop_database(url.rsplit("/", 1)[-1].split("?", 1)[0])
