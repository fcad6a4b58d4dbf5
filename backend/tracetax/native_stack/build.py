"""Build the native stack's third-party binaries into the tool cache.

Each binary is built once per pinned version (and, for the Collector, per manifest hash) into
`<cache>/bin/<name>-<version>`, from a writable copy of the published module so that the
module's own go.mod, with its replace directives, is the one in force. A build that fails or
is interrupted leaves no binary behind: output goes to a temporary name and is renamed last.

Only the standard library is used, so this runs before the backend's dependencies exist.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock

from tracetax.native_stack.components import BUILDS, CollectorBuild, GoBuild, binary_path
from tracetax.system.paths import cache_dir

Report = Callable[[str], None]


class BuildError(RuntimeError):
    """A build step failed; the message names the component, the cause and the log file."""


def _print(message: str) -> None:
    print(message, flush=True)


def go_env(extra_nosumdb: tuple[str, ...] = ()) -> dict[str, str]:
    env = dict(os.environ)
    env["GOTOOLCHAIN"] = "local"  # never download another Go: only the registries are reachable
    env["GOFLAGS"] = "-mod=mod"
    env["CGO_ENABLED"] = "0"
    if extra_nosumdb:
        env["GONOSUMDB"] = ",".join(extra_nosumdb)
    return env


def require_go() -> str:
    go = shutil.which("go")
    if go is None:
        raise BuildError(
            "go toolchain: `go` is not on PATH. Install Go 1.26 or newer "
            "(Debian: apt-get install golang, or the official tarball) and run `make up` again."
        )
    return go


@contextmanager
def _build_lock() -> Iterator[None]:
    """Two `make up`s at once would race on the same cache; the second waits."""
    lock_path = cache_dir() / "build.lock"
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(lock_path):
        yield


def _run_logged(name: str, argv: list[str], cwd: Path, env: dict[str, str], log: Path, report: Report) -> None:
    """Run one build step, appending its output to `log`, printing elapsed time while it runs."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("a") as out:
        out.write(f"\n$ (cd {cwd} && {' '.join(argv)})\n")
        out.flush()
        started = time.monotonic()
        process = subprocess.Popen(argv, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT)
        stop = threading.Event()

        def tick() -> None:
            while not stop.wait(30):
                report(f"  [{name}] still building... {int(time.monotonic() - started)}s")

        ticker = threading.Thread(target=tick, daemon=True)
        ticker.start()
        try:
            code = process.wait()
        except BaseException:
            process.kill()
            process.wait()
            raise
        finally:
            stop.set()
    if code != 0:
        tail = log.read_text(errors="replace").splitlines()[-15:]
        raise BuildError(
            f"{name}: `{' '.join(argv[:3])} ...` failed with exit code {code}; log: {log}\n  " + "\n  ".join(tail)
        )


def download_module(module: str, version: str, env: dict[str, str], log: Path, name: str) -> Path:
    """Fetch a module into the Go module cache and return its (read-only) directory."""
    go = require_go()
    result = subprocess.run(
        [go, "mod", "download", "-json", f"{module}@{version}"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("a") as out:
        out.write(result.stdout + result.stderr)
    info = json.loads(result.stdout) if result.stdout.strip().startswith("{") else {}
    if result.returncode != 0 or "Dir" not in info:
        cause = info.get("Error") or result.stderr.strip() or f"exit code {result.returncode}"
        raise BuildError(f"{name}: could not download {module}@{version}: {cause}; log: {log}")
    return Path(info["Dir"])


def _writable_copy(source: Path, target: Path) -> None:
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(source, target)
    for root, dirs, files in os.walk(target):
        for entry in dirs + files:
            path = Path(root) / entry
            path.chmod(path.stat().st_mode | 0o200)
    target.chmod(target.stat().st_mode | 0o200)


def build_go(build: GoBuild, report: Report) -> Path:
    target = binary_path(build)
    log = cache_dir() / "logs" / f"build-{build.name}.log"
    log.unlink(missing_ok=True)
    env = go_env(build.nosumdb)
    go = require_go()
    report(f"  [{build.name}] downloading {build.module}@{build.version}")
    module_dir = download_module(build.module, build.version, env, log, build.name)
    source = cache_dir() / "src" / build.binary_name
    _writable_copy(module_dir, source)
    for edit in build.go_mod_edits:
        _run_logged(build.name, [go, "mod", "edit", edit], source, env, log, report)
    report(f"  [{build.name}] compiling {build.package} (cold: about {build.expected_minutes} min on 2 cores)")
    partial = target.with_name(target.name + ".partial")
    argv = [go, "build", "-trimpath", "-o", str(partial), f"-ldflags={' '.join(('-s', '-w', *build.ldflags))}"]
    if build.tags:
        argv.append(f"-tags={','.join(build.tags)}")
    _run_logged(build.name, [*argv, build.package], source, env, log, report)
    partial.rename(target)
    shutil.rmtree(source, ignore_errors=True)  # the module cache keeps the pristine copy
    return target


def build_collector(build: CollectorBuild, report: Report) -> Path:
    target = binary_path(build)
    log = cache_dir() / "logs" / f"build-{build.name}.log"
    log.unlink(missing_ok=True)
    env = go_env()
    go = require_go()
    builder = cache_dir() / "bin" / f"ocb-{build.version}"
    if not builder.exists():
        report(f"  [{build.name}] building the Collector Builder {build.version}")
        builder_dir = download_module(build.builder_module, build.version, env, log, build.name)
        source = cache_dir() / "src" / f"ocb-{build.version}"
        _writable_copy(builder_dir, source)
        partial = builder.with_name(builder.name + ".partial")
        _run_logged(build.name, [go, "build", "-trimpath", "-o", str(partial), "."], source, env, log, report)
        partial.rename(builder)
        shutil.rmtree(source, ignore_errors=True)
    output = cache_dir() / "src" / build.binary_name
    shutil.rmtree(output, ignore_errors=True)
    report(
        f"  [{build.name}] building the distribution from {build.manifest.name} "
        f"(cold: about {build.expected_minutes} min on 2 cores)"
    )
    _run_logged(
        build.name,
        [str(builder), f"--config={build.manifest}", f"--output-path={output}"],
        build.manifest.parent,
        env,
        log,
        report,
    )
    built = output / build.name
    if not built.exists():
        raise BuildError(f"{build.name}: the builder finished but {built} is missing; log: {log}")
    partial = target.with_name(target.name + ".partial")
    shutil.copy2(built, partial)
    partial.rename(target)
    shutil.rmtree(output, ignore_errors=True)
    return target


def build_all(report: Report = _print, force: bool = False) -> dict[str, Path]:
    """Build whatever is missing; return the binary of every component by name."""
    built: dict[str, Path] = {}
    with _build_lock():
        for build in BUILDS:
            target = binary_path(build)
            if target.exists() and not force:
                report(f"  [{build.name}] cached: {target}")
                built[build.name] = target
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            started = time.monotonic()
            report(f"  [{build.name}] not in the cache: building {build.binary_name}")
            if isinstance(build, GoBuild):
                built[build.name] = build_go(build, report)
            else:
                built[build.name] = build_collector(build, report)
            report(f"  [{build.name}] built in {time.monotonic() - started:.0f}s: {target}")
    return built


if __name__ == "__main__":
    try:
        build_all()
    except BuildError as error:
        print(f"build failed: {error}", file=sys.stderr)
        sys.exit(1)
