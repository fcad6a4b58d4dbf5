"""A throwaway PostgreSQL server for the test session, so the repository and API tests run
against the database the Helm chart offers (`backend.database.url`) as well as SQLite.

Debian's server binaries (/usr/lib/postgresql/<version>/bin) run a new cluster in a temporary
directory. It is reached only over a unix socket in that directory (`listen_addresses` empty):
no TCP port to collide with a running stack or another test session. Durability is off
(fsync, synchronous_commit, full_page_writes), for speed: nothing in the cluster outlives the
session, so no commit needs to wait for a disk flush.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psycopg
from psycopg import sql

from tracetax.system import processes

DEBIAN_ROOT = Path("/usr/lib/postgresql")
SUPERUSER = "tracetax"
# Not UTC on purpose: initdb takes the host's time zone, so a server in another one is common,
# and stored instants must still read back in UTC.
SERVER_TIME_ZONE = "America/New_York"
START_TIMEOUT_S = 30.0
STOP_GRACE_S = 10.0
SERVER_SETTINGS = {
    "listen_addresses": "",
    "fsync": "off",
    "synchronous_commit": "off",
    "full_page_writes": "off",
    "timezone": SERVER_TIME_ZONE,
}
INSTALL_HINT = "install Debian's postgresql package (`make test-backend` does as root: apt-get install postgresql)"


class PostgresUnavailableError(RuntimeError):
    """PostgreSQL is not installed here, or its cluster could not be started."""


@dataclass
class PostgresServer:
    directory: Path  # data directory, socket and log: everything the server writes
    process: subprocess.Popen[bytes]

    def url(self, database: str) -> str:
        """The SQLAlchemy URL of `database`, in the form the Helm chart documents."""
        return f"postgresql+psycopg://{SUPERUSER}@/{database}?host={self.directory}"

    def admin(self) -> psycopg.Connection[tuple[object, ...]]:
        # CREATE/DROP DATABASE cannot run inside a transaction.
        return psycopg.connect(host=str(self.directory), user=SUPERUSER, dbname="postgres", autocommit=True)

    def create_database(self, name: str, template: str = "template0") -> str:
        with self.admin() as connection:
            statement = sql.SQL("CREATE DATABASE {} TEMPLATE {}")
            connection.execute(statement.format(sql.Identifier(name), sql.Identifier(template)))
        return self.url(name)

    def drop_database(self, name: str) -> None:
        # FORCE: a test that left connections open (an engine never disposed) must not block it.
        with self.admin() as connection:
            connection.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


def server_binaries(root: Path = DEBIAN_ROOT) -> Path:
    """The bin directory of the newest installed major version that has initdb and postgres."""
    found = [
        version / "bin"
        for version in root.glob("*")
        if version.name.isdigit() and all((version / "bin" / name).is_file() for name in ("initdb", "postgres"))
    ]
    if not found:
        raise PostgresUnavailableError(f"no PostgreSQL server under {root}/<version>/bin: {INSTALL_HINT}")
    return max(found, key=lambda path: int(path.parent.name))


def unprivileged_prefix(directory: Path) -> list[str]:
    """PostgreSQL refuses to run as root. Under root (CI containers, these machines) its
    programs run as the `postgres` account Debian's package creates, owning `directory`."""
    if os.geteuid() != 0:
        return []
    try:
        account = pwd.getpwnam("postgres")
    except KeyError:
        raise PostgresUnavailableError(f"running as root and there is no `postgres` account: {INSTALL_HINT}") from None
    os.chown(directory, account.pw_uid, account.pw_gid)
    # setpriv execs in place: the pid spawned is the server's own, so stopping it stops it.
    return ["setpriv", f"--reuid={account.pw_uid}", f"--regid={account.pw_gid}", "--clear-groups", "--"]


def start(directory: Path) -> PostgresServer:
    """initdb a cluster in `directory` (an empty directory the caller removes) and start its
    server; returns once it accepts connections. Raises PostgresUnavailableError, with the
    server's log, and leaves nothing running when it cannot."""
    binaries = server_binaries()
    prefix = unprivileged_prefix(directory)
    initdb(prefix, binaries, directory / "data")
    log = directory / "postgres.log"
    argv = [*prefix, str(binaries / "postgres"), "-D", str(directory / "data"), "-k", str(directory)]
    argv += [option for key, value in SERVER_SETTINGS.items() for option in ("-c", f"{key}={value}")]
    with log.open("wb") as output:
        server = PostgresServer(directory, processes.spawn(argv, stdout=output))
    try:
        wait_ready(server, log)
    except BaseException:
        stop(server)
        raise
    return server


def initdb(prefix: list[str], binaries: Path, data: Path) -> None:
    argv = [*prefix, str(binaries / "initdb"), "-D", str(data), "--auth=trust", f"--username={SUPERUSER}"]
    # C locale and UTF-8 whatever the host's locale; --no-sync: nothing here must survive a crash.
    argv += ["--encoding=UTF8", "--no-locale", "--no-sync", "--no-instructions"]
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise PostgresUnavailableError(f"initdb failed ({done.returncode}):\n{done.stdout}{done.stderr}")


def wait_ready(server: PostgresServer, log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while True:
        try:
            server.admin().close()
            return
        except psycopg.OperationalError as error:
            # Not listening yet, or "the database system is starting up".
            failed = server.process.poll() is not None or time.monotonic() > deadline
            if failed:
                cause = "exited" if server.process.poll() is not None else f"not ready after {START_TIMEOUT_S:.0f} s"
                raise PostgresUnavailableError(f"PostgreSQL {cause} ({error}); its log:\n{log_tail(log)}") from None
        time.sleep(0.05)


def log_tail(log: Path, lines: int = 20) -> str:
    with contextlib.suppress(OSError):
        return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])
    return "(no log)"


def stop(server: PostgresServer) -> int:
    """Fast shutdown (SIGINT: ends open sessions, which pooled test connections may still
    hold, where SIGTERM would wait for them), then processes.stop's SIGTERM/SIGKILL of the
    whole group if it has not exited within the grace period."""
    with contextlib.suppress(ProcessLookupError):
        if server.process.poll() is None:
            os.kill(server.process.pid, signal.SIGINT)
    with contextlib.suppress(subprocess.TimeoutExpired):
        server.process.wait(timeout=STOP_GRACE_S)
    return processes.stop(server.process, STOP_GRACE_S)


@contextlib.contextmanager
def temporary_server() -> Iterator[PostgresServer]:
    """A server in a new temporary directory; on leaving (a failure or Ctrl-C included) it is
    stopped and the directory, cluster and socket with it, removed."""
    # Not pytest's tmp_path: its base directory is private to the user running pytest, which
    # the `postgres` account is not under root; and a unix socket's path must stay under 107
    # bytes, which pytest's long test-named directories can exceed.
    directory = Path(tempfile.mkdtemp(prefix="tracetax-pg-"))
    try:
        server = start(directory)
        try:
            yield server
        finally:
            stop(server)
    finally:
        shutil.rmtree(directory, ignore_errors=True)
