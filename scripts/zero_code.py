#!/usr/bin/env python3
"""Install the zero-code instrumentation sets and the third-party example apps into the cache.

    python3 scripts/zero_code.py zero-code [--uv UV] [--force]   # `make zero-code`
    python3 scripts/zero_code.py examples  [--uv UV] [--force]   # `make examples`
    python3 scripts/zero_code.py status                          # what is installed, as JSON

Everything goes under $TRACETAX_CACHE_DIR (the Makefile's CACHE_DIR, default ~/.cache/tracetax):

    zero-code/python-<distro>/      venv: bin/opentelemetry-instrument, bin/python, lib/python3.11/site-packages
    zero-code/java/opentelemetry-javaagent-<version>.jar
    zero-code/node-<version>/node_modules/@opentelemetry/auto-instrumentations-node/...
    zero-code/installed.json        what is installed here, absolute paths, the eBPF preflight's verdict
    examples/httpbin/venv/          httpbin + gunicorn + the same Python zero-code set
    examples/wiremock/wiremock-<version>/lib/*.jar, examples/wiremock/root/mappings/*.json

Each installed directory holds a stamp (.tracetax-installed) with a hash of the pin files it was
installed from: when the stamp matches, nothing is done; when a pin changes, the directory is
deleted and installed again. A stamp is written last, so an interrupted install is redone.
Standard library only: it runs before any venv exists.
"""

from __future__ import annotations

import argparse
import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ZC_SRC = REPO / "instrumented-services" / "zero-code"
VERSIONS_FILE = ZC_SRC / "versions.json"
PY_REQUIREMENTS = ZC_SRC / "python" / "requirements.txt"
NODE_PACKAGE = ZC_SRC / "node" / "package.json"
NODE_LOCK = ZC_SRC / "node" / "package-lock.json"
JAVA_POM = REPO / "instrumented-services" / "java" / "pom.xml"
GO_MAKEFILE = REPO / "instrumented-services" / "go" / "Makefile"
EXAMPLES_SRC = REPO / "docs" / "examples"
HTTPBIN_REQUIREMENTS = EXAMPLES_SRC / "httpbin" / "requirements.txt"
WIREMOCK_POM = EXAMPLES_SRC / "wiremock" / "pom.xml"
WIREMOCK_MAPPINGS = EXAMPLES_SRC / "wiremock" / "mappings"

STAMP = ".tracetax-installed"
# The Java demo's pinned plugin: already in ~/.m2 after `make services`, so no new plugin resolves.
DEPENDENCY_PLUGIN = "org.apache.maven.plugins:maven-dependency-plugin:3.8.1"
MVN_FLAGS = ["-q", "-B", "-Dstyle.color=never"]


class InstallError(Exception):
    pass


def cache_dir() -> Path:
    return Path(os.environ.get("TRACETAX_CACHE_DIR") or Path.home() / ".cache" / "tracetax").expanduser()


def load_versions() -> dict:
    return json.loads(VERSIONS_FILE.read_text())


def digest(*parts: Path | str) -> str:
    h = hashlib.sha256()
    for part in parts:
        if isinstance(part, Path):
            files = sorted(p for p in part.rglob("*") if p.is_file()) if part.is_dir() else [part]
            for f in files:
                h.update(str(f.relative_to(REPO)).encode())
                h.update(f.read_bytes())
        else:
            h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()[:16]


def stamp_file(target: Path) -> Path:
    """A directory's stamp is inside it; a file's (the agent jar) sits beside it."""
    return target.with_name(target.name + STAMP) if target.suffix == ".jar" else target / STAMP


def stamp_matches(target: Path, want: str) -> bool:
    try:
        return target.exists() and json.loads(stamp_file(target).read_text()).get("hash") == want
    except (OSError, ValueError):
        return False


def write_stamp(target: Path, want: str, seconds: float) -> None:
    data = {"hash": want, "installed_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "seconds": round(seconds, 1)}
    tmp = stamp_file(target).with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n")
    tmp.replace(stamp_file(target))


def run(argv: list[str], log: Path, cwd: Path | None = None, env: dict | None = None) -> None:
    """Run a command, appending its output to log; on failure raise with the log's tail."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("a") as out:
        out.write(f"$ {' '.join(argv)}\n")
        out.flush()
        proc = subprocess.run(argv, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT, check=False)
    if proc.returncode != 0:
        tail = "\n".join(log.read_text().splitlines()[-15:])
        raise InstallError(f"`{' '.join(argv)}` exited {proc.returncode} (log: {log}):\n{tail}")


def pin_of(requirements: Path, name: str) -> str | None:
    m = re.search(rf"^{re.escape(name)}==(\S+)", requirements.read_text(), re.M)
    return m.group(1) if m else None


def check_versions(v: dict) -> None:
    """versions.json is what the backend reads; refuse to install when it disagrees with the pins."""
    problems = []
    py = v["python"]
    for pkg, want in (("opentelemetry-distro", py["distro"]), ("opentelemetry-sdk", py["sdk"])):
        if pin_of(PY_REQUIREMENTS, pkg) != want:
            problems.append(f"python: {pkg} is {pin_of(PY_REQUIREMENTS, pkg)} in {PY_REQUIREMENTS.name}, {want} here")
    if py["dir"] != f"python-{py['distro']}":
        problems.append(f"python.dir {py['dir']!r} should be python-{py['distro']}")
    node = v["node"]
    deps = json.loads(NODE_PACKAGE.read_text())["dependencies"]
    if deps.get("@opentelemetry/auto-instrumentations-node") != node["auto_instrumentations"]:
        problems.append("node: package.json pins another @opentelemetry/auto-instrumentations-node")
    locked = json.loads(NODE_LOCK.read_text())["packages"]
    if (
        locked.get("node_modules/@opentelemetry/auto-instrumentations-node", {}).get("version")
        != node["auto_instrumentations"]
    ):
        problems.append(
            "node: package-lock.json is stale "
            "(run npm install --package-lock-only in instrumented-services/zero-code/node)"
        )
    if locked.get("node_modules/@opentelemetry/sdk-node", {}).get("version") != node["sdk"]:
        problems.append(f"node: the lock's @opentelemetry/sdk-node is not {node['sdk']}")
    if node["dir"] != f"node-{node['auto_instrumentations']}":
        problems.append(f"node.dir {node['dir']!r} should be node-{node['auto_instrumentations']}")
    m = re.search(r"<otel\.javaagent\.version>([^<]+)<", JAVA_POM.read_text())
    if not m or m.group(1) != v["java"]["agent"]:
        problems.append(
            f"java: instrumented-services/java/pom.xml pins agent {m and m.group(1)}, "
            f"versions.json {v['java']['agent']}"
        )
    if v["java"]["jar"] != f"java/opentelemetry-javaagent-{v['java']['agent']}.jar":
        problems.append("java.jar does not carry the agent's version")
    m = re.search(r"^AUTO_VERSION\s*:=\s*(\S+)", GO_MAKEFILE.read_text(), re.M)
    if not m or m.group(1) != v["go"]["auto"]:
        problems.append(
            f"go: instrumented-services/go/Makefile builds auto {m and m.group(1)}, versions.json {v['go']['auto']}"
        )
    if problems:
        raise InstallError(
            "instrumented-services/zero-code/versions.json disagrees with the pins:\n  " + "\n  ".join(problems)
        )


def python311(want: str) -> str:
    """The machine's python3 when it is `want` (3.11: the pins are compiled for it), else python3.11."""
    candidates = [sys.executable, shutil.which("python3"), shutil.which(f"python{want}")]
    for c in candidates:
        if not c:
            continue
        out = subprocess.run(
            [c, "-c", "import sys; print(sys.executable); print('%d.%d' % sys.version_info[:2])"],
            capture_output=True,
            text=True,
            check=False,
        )
        lines = out.stdout.split()
        if out.returncode == 0 and len(lines) == 2 and lines[1] == want:
            return lines[0]
    raise InstallError(
        f"no Python {want} found (python3 is {sys.version.split()[0]}): the zero-code pins are compiled "
        f"for {want} (greenlet, grpcio and protobuf wheels); install python{want} and retry"
    )


def install_venv(target: Path, requirements: Path, uv: str, python: str, log: Path, check: str) -> None:
    if target.exists():
        shutil.rmtree(target)
    run([uv, "venv", "--quiet", "--python", python, str(target)], log)
    run([uv, "pip", "sync", "--quiet", "--python", str(target / "bin" / "python"), str(requirements)], log)
    run([str(target / "bin" / "python"), "-c", check], log)


def component(name: str, target: Path, want: str, force: bool, install) -> dict:
    """Install one component unless its stamp matches; return what the status needs."""
    if not force and stamp_matches(target, want):
        return {"name": name, "path": str(target), "state": "present"}
    print(f"  {name}: installing into {target}", flush=True)
    t0 = time.monotonic()
    install()
    seconds = time.monotonic() - t0
    write_stamp(target, want, seconds)
    print(f"  {name}: installed in {seconds:.1f} s", flush=True)
    return {"name": name, "path": str(target), "state": "installed", "seconds": round(seconds, 1)}


def ebpf_preflight() -> str:
    """The same checks as instrumented-services/go/cmd/demo-go-ebpf (preflight); '' when allowed."""
    if not Path("/sys/bus/event_source/devices/uprobe/type").exists():
        return "the kernel exposes no uprobe PMU (/sys/bus/event_source/devices/uprobe missing)"
    if not Path("/sys/kernel/btf/vmlinux").exists():
        return "the kernel exposes no BTF (/sys/kernel/btf/vmlinux missing)"
    try:
        status = Path("/proc/self/status").read_text()
        cap_eff = int(re.search(r"^CapEff:\s*([0-9a-f]+)", status, re.M).group(1), 16)  # type: ignore[union-attr]
    except (OSError, AttributeError) as exc:
        return f"cannot read capabilities: {exc}"
    has = lambda bit: cap_eff & (1 << bit) != 0  # noqa: E731
    if not has(21) and not (has(38) and has(39)):
        return f"needs root or CAP_SYS_ADMIN (or CAP_BPF+CAP_PERFMON); effective capabilities are {cap_eff:#x}"
    return ""


def install_zero_code(uv: str, force: bool) -> list[dict]:
    v = load_versions()
    check_versions(v)
    root = cache_dir() / "zero-code"
    logs = cache_dir() / "logs"
    root.mkdir(parents=True, exist_ok=True)
    done = []

    py = v["python"]
    py_target = root / py["dir"]
    python = python311(py["python"])
    check = (
        "import importlib.metadata as m, opentelemetry.sdk, opentelemetry.distro, "
        "opentelemetry.exporter.otlp.proto.http.trace_exporter, "
        "opentelemetry.exporter.otlp.proto.grpc.trace_exporter; "
        f"assert m.version('opentelemetry-distro') == {py['distro']!r}, m.version('opentelemetry-distro'); "
        f"assert m.version('opentelemetry-sdk') == {py['sdk']!r}, m.version('opentelemetry-sdk')"
    )
    done.append(
        component(
            f"python zero-code (opentelemetry-distro {py['distro']}, SDK {py['sdk']})",
            py_target,
            digest(PY_REQUIREMENTS, python),
            force,
            lambda: install_venv(py_target, PY_REQUIREMENTS, uv, python, logs / "zero-code-python.log", check),
        )
    )

    java = v["java"]
    jar = root / java["jar"]

    def install_agent() -> None:
        if shutil.which("mvn") is None:
            raise InstallError("mvn is missing (needed to fetch the OpenTelemetry Java agent from Maven Central)")
        jar.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=jar.parent) as tmp:
            run(
                [
                    "mvn",
                    *MVN_FLAGS,
                    f"{DEPENDENCY_PLUGIN}:copy",
                    f"-Dartifact={java['maven']}:jar",
                    f"-DoutputDirectory={tmp}",
                ],
                logs / "zero-code-java.log",
                cwd=Path(tmp),
            )
            (Path(tmp) / jar.name).replace(jar)

    # The jar's name carries the version: a new pin is a new file. Its stamp sits beside it.
    done.append(component(f"java agent {java['agent']}", jar, digest(java["maven"]), force, install_agent))

    node = v["node"]
    node_target = root / node["dir"]

    def install_node() -> None:
        if shutil.which("npm") is None:
            raise InstallError("npm is missing (needed for @opentelemetry/auto-instrumentations-node)")
        if node_target.exists():
            shutil.rmtree(node_target)
        node_target.mkdir(parents=True)
        shutil.copy2(NODE_PACKAGE, node_target / "package.json")
        shutil.copy2(NODE_LOCK, node_target / "package-lock.json")
        run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], logs / "zero-code-node.log", cwd=node_target)
        if not (root / node["register"]).is_file():
            raise InstallError(f"{root / node['register']} missing after npm ci")

    done.append(
        component(
            f"node auto-instrumentations {node['auto_instrumentations']}",
            node_target,
            digest(NODE_PACKAGE, NODE_LOCK),
            force,
            install_node,
        )
    )

    write_installed(v)
    return done


def write_installed(v: dict) -> dict:
    root = cache_dir() / "zero-code"
    go_binary = REPO / v["go"]["binary"]
    reason = ebpf_preflight()
    if not reason and not go_binary.is_file():
        reason = f"{v['go']['binary']} not built (make services; needs clang and llvm-strip)"
    site = sorted((root / v["python"]["dir"] / "lib").glob("python3.*/site-packages"))
    installed = {
        "cache_dir": str(root),
        "python": {
            **v["python"],
            "dir": str(root / v["python"]["dir"]),
            "instrument": str(root / v["python"]["instrument"]),
            "python_bin": str(root / v["python"]["python_bin"]),
            "site_packages": str(site[0]) if site else None,
            "present": stamp_matches(
                root / v["python"]["dir"], digest(PY_REQUIREMENTS, python311(v["python"]["python"]))
            ),
        },
        "java": {**v["java"], "jar": str(root / v["java"]["jar"]), "present": (root / v["java"]["jar"]).is_file()},
        "node": {
            **v["node"],
            "dir": str(root / v["node"]["dir"]),
            "register": str(root / v["node"]["register"]),
            "present": (root / v["node"]["register"]).is_file(),
        },
        "go": {
            **v["go"],
            "binary": str(go_binary),
            "present": go_binary.is_file(),
            "ebpf_available": reason == "",
            "ebpf_unavailable_reason": reason or None,
        },
    }
    root.mkdir(parents=True, exist_ok=True)
    tmp = root / "installed.json.tmp"
    tmp.write_text(json.dumps(installed, indent=2) + "\n")
    tmp.replace(root / "installed.json")
    return installed


def install_examples(uv: str, force: bool) -> list[dict]:
    v = load_versions()
    root = cache_dir() / "examples"
    logs = cache_dir() / "logs"
    root.mkdir(parents=True, exist_ok=True)
    done = []

    httpbin = root / "httpbin" / "venv"
    python = python311(v["python"]["python"])
    check = (
        "import importlib.metadata as m, httpbin, gunicorn, opentelemetry.distro; "
        f"assert m.version('opentelemetry-distro') == {v['python']['distro']!r}"
    )
    hb_version = pin_of(HTTPBIN_REQUIREMENTS, "httpbin")
    done.append(
        component(
            f"httpbin {hb_version} + gunicorn {pin_of(HTTPBIN_REQUIREMENTS, 'gunicorn')}",
            httpbin,
            digest(HTTPBIN_REQUIREMENTS, python),
            force,
            lambda: install_venv(httpbin, HTTPBIN_REQUIREMENTS, uv, python, logs / "examples-httpbin.log", check),
        )
    )

    m = re.search(r"<wiremock\.version>([^<]+)<", WIREMOCK_POM.read_text())
    if not m:
        raise InstallError(f"{WIREMOCK_POM}: no <wiremock.version>")
    wm_version = m.group(1)
    wm = root / "wiremock"
    lib_dir = wm / f"wiremock-{wm_version}"

    def install_wiremock() -> None:
        if shutil.which("mvn") is None:
            raise InstallError("mvn is missing (needed to fetch WireMock from Maven Central)")
        if lib_dir.exists():
            shutil.rmtree(lib_dir)
        wm.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=wm) as tmp:
            shutil.copy2(WIREMOCK_POM, Path(tmp) / "pom.xml")
            run(
                [
                    "mvn",
                    *MVN_FLAGS,
                    "-f",
                    str(Path(tmp) / "pom.xml"),
                    f"{DEPENDENCY_PLUGIN}:copy-dependencies",
                    "-DincludeScope=runtime",
                    f"-DoutputDirectory={tmp}/lib",
                ],
                logs / "examples-wiremock.log",
                cwd=Path(tmp),
            )
            lib_dir.mkdir()
            (Path(tmp) / "lib").replace(lib_dir / "lib")
        if not (lib_dir / "lib" / f"wiremock-{wm_version}.jar").is_file():
            raise InstallError(f"wiremock-{wm_version}.jar missing after copy-dependencies")

    done.append(component(f"wiremock {wm_version} (classpath)", lib_dir, digest(WIREMOCK_POM), force, install_wiremock))

    def install_mappings() -> None:
        target = wm / "root"
        if target.exists():
            shutil.rmtree(target)
        (target / "__files").mkdir(parents=True)
        shutil.copytree(WIREMOCK_MAPPINGS, target / "mappings")

    done.append(component("wiremock mappings", wm / "root", digest(WIREMOCK_MAPPINGS), force, install_mappings))
    return done


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=["zero-code", "examples", "status"])
    parser.add_argument("--uv", default=os.environ.get("UV", "uv"), help="the uv binary (the Makefile passes $(UV))")
    parser.add_argument("--force", action="store_true", help="reinstall even when the stamps match")
    args = parser.parse_args()

    if args.what == "status":
        print(json.dumps(write_installed(load_versions()), indent=2))
        return 0
    cache_dir().mkdir(parents=True, exist_ok=True)
    t0 = time.monotonic()
    # One installer at a time (make up and make test-backend may run together).
    with (cache_dir() / "zero-code.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            done = (
                install_zero_code(args.uv, args.force)
                if args.what == "zero-code"
                else install_examples(args.uv, args.force)
            )
        except InstallError as exc:
            print(f"make {args.what}: {exc}", file=sys.stderr)
            return 1
    if all(d["state"] == "present" for d in done):
        print(
            f"{args.what}: present in {cache_dir() / ('zero-code' if args.what == 'zero-code' else 'examples')} "
            f"({', '.join(Path(d['path']).name for d in done)})"
        )
    else:
        print(f"{args.what}: done in {time.monotonic() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
