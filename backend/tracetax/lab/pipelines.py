"""The lab's Collector configs: which pipeline variants ship, their environment, their validation.

A lab Collector runs `collector-pipelines/lab/base.yaml` plus one overlay (a shipped variant
or a user's own file); downstream Collectors run `downstream.yaml` alone. Every endpoint comes
from LAB_* environment variables, so one config serves every round on fresh ports.

`validate` turns a config mistake into errors that name the file, the line and the component,
before a round starts: first the YAML itself, then the Collector's own `validate` command,
whose message is traced back to the line that defines (or references) the component it names.

A user's own overlay (`config_file`) is read only from the lab's own directory or the overlays
directory the backend is configured with (`OverlayPolicy`), as a regular file under a size cap,
and `validate` runs the Collector with nothing of the backend's environment: a spec cannot make
the backend read or echo anything else (README, "Security").

Standard library and PyYAML only: no HTTP, no engine.
"""

from __future__ import annotations

import os
import re
import stat
import subprocess
import tempfile
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from tracetax.lab.redact import redact
from tracetax.native_stack import components
from tracetax.system import paths

if TYPE_CHECKING:
    from tracetax.core.config import Settings

LAB_DIR = paths.REPO_ROOT / "collector-pipelines" / "lab"
BASE_CONFIG = LAB_DIR / "base.yaml"
DOWNSTREAM_CONFIG = LAB_DIR / "downstream.yaml"
PIPELINE = "traces/lab"

# The documented order: the baseline first, then batching, memory protection, trace-holding
# processors (the two sampling variants side by side) and the routing exporter. A yaml file
# added to LAB_DIR and not named here follows, alphabetically.
ORDER = (
    "passthrough",
    "batch-default",
    "batch-tuned",
    "memory-limited",
    "groupbytrace",
    "tail-sampling",
    "loadbalancing",
)
NOT_VARIANTS = {BASE_CONFIG.name, DOWNSTREAM_CONFIG.name}
# Component types (the part of an id before "/"), old aliases included.
HOLDING_TYPES = {"groupbytrace", "tail_sampling"}
SAMPLING_TYPES = {"tail_sampling", "filter"}
LOADBALANCING_TYPES = {"load_balancing", "loadbalancing"}
# The loadbalancing overlay routes to LAB_DOWNSTREAM_A and LAB_DOWNSTREAM_B.
LOADBALANCING_DOWNSTREAMS = 2
# `validate` loads every component factory and builds the pipelines: well under a second,
# but the machine is shared with measurements.
VALIDATE_TIMEOUT_S = 30.0
# The settings that say where a user's overlay may come from and how large it may be.
OVERLAYS_SETTING = "TRACETAX_PIPELINE_OVERLAYS_DIR"
MAX_BYTES_SETTING = "TRACETAX_MAX_CONFIG_FILE_BYTES"
# What any config file is read up to when no policy says otherwise (the shipped ones are a few
# kB): the settings' default.
DEFAULT_MAX_CONFIG_BYTES = 262_144


# -- variants ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Variant:
    """A shipped pipeline variant: an overlay over base.yaml."""

    name: str
    overlay: Path
    # The first line of the file's header comment.
    description: str
    # Downstream Collectors the lab must start for it (0: the base's single exporter target).
    downstreams: int
    # It keeps spans in memory for a while (a decision wait): the round's drain must cover it.
    holds_traces: bool
    # It drops part of the traces by design, so fewer spans arriving downstream is no loss.
    samples: bool


def header_description(text: str) -> str:
    """The first non-empty line of the leading comment block, without its `#`."""
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        stripped = line.lstrip("#").strip()
        if stripped:
            return stripped
    return ""


def _pipeline(config: Any) -> dict[str, Any]:
    """The overlay's `service.pipelines.traces/lab` mapping, {} when it sets none."""
    node: Any = config
    for key in ("service", "pipelines", PIPELINE):
        node = node.get(key) if isinstance(node, dict) else None
    return node if isinstance(node, dict) else {}


def _types(ids: Any) -> set[str]:
    return {str(component).split("/", 1)[0] for component in ids} if isinstance(ids, list) else set()


def read_variant(path: Path) -> Variant:
    """A variant described by its overlay's content: what its pipeline runs decides its flags."""
    text = path.read_text()
    pipeline = _pipeline(yaml.safe_load(text))
    processors = _types(pipeline.get("processors"))
    # An overlay that keeps the base's exporter list keeps the base's single downstream.
    exporters = _types(pipeline.get("exporters"))
    return Variant(
        name=path.stem,
        overlay=path,
        description=header_description(text),
        downstreams=LOADBALANCING_DOWNSTREAMS if exporters & LOADBALANCING_TYPES else 0,
        holds_traces=bool(processors & HOLDING_TYPES),
        samples=bool(processors & SAMPLING_TYPES),
    )


def _order_key(path: Path) -> tuple[int, str]:
    return (ORDER.index(path.stem) if path.stem in ORDER else len(ORDER), path.stem)


def load_variants(directory: Path = LAB_DIR) -> dict[str, Variant]:
    """Every overlay in `directory` (each yaml but the base and the downstream), in ORDER."""
    overlays = [path for path in directory.glob("*.yaml") if path.name not in NOT_VARIANTS]
    return {path.stem: read_variant(path) for path in sorted(overlays, key=_order_key)}


VARIANTS: dict[str, Variant] = load_variants()


# -- a user's own overlay ---------------------------------------------------------------------


class OverlayRefusedError(ValueError):
    """A config_file the backend will not read; the message names the directories and settings."""


@dataclass(frozen=True)
class OverlayPolicy:
    """Where a user's overlay may come from: under the lab's own directory or the configured
    overlays directory (symlinks followed), a regular file of at most `max_bytes`. The caller
    builds it from the settings (TRACETAX_PIPELINE_OVERLAYS_DIR, TRACETAX_MAX_CONFIG_FILE_BYTES)."""

    overlays_dir: Path | None
    max_bytes: int = DEFAULT_MAX_CONFIG_BYTES

    @classmethod
    def from_settings(cls, settings: Settings) -> OverlayPolicy:
        """The backend's policy: TRACETAX_PIPELINE_OVERLAYS_DIR, by default `pipeline-overlays`
        in the state directory (only the backend's own user writes there)."""
        overlays_dir = settings.pipeline_overlays_dir or paths.state_dir() / "pipeline-overlays"
        return cls(overlays_dir, settings.max_config_file_bytes)

    @property
    def directories(self) -> tuple[Path, ...]:
        configured = (self.overlays_dir.expanduser().resolve(),) if self.overlays_dir else ()
        return (LAB_DIR.resolve(), *configured)

    def where(self) -> str:
        configured = str(self.overlays_dir) if self.overlays_dir else "not set"
        return f"{LAB_DIR} (the lab's own) or {OVERLAYS_SETTING} ({configured})"


def checked_overlay(config_file: Path, policy: OverlayPolicy) -> Path:
    """The overlay's real path (symlinks followed) once it lies under one of the policy's
    directories and is a regular file of at most policy.max_bytes; else OverlayRefusedError.
    Nothing outside those directories is opened, and the refusal is the same whether such a
    path exists or not: the answer says nothing about the rest of the host."""
    # Relative to the backend's directory, as before; absolute: the Collector runs elsewhere.
    real = config_file.expanduser().absolute().resolve()
    if not any(real.is_relative_to(directory) for directory in policy.directories):
        raise OverlayRefusedError(
            f"config_file {str(config_file)!r} is not under {policy.where()} (symlinks followed): put the overlay "
            f"there, or have the backend's operator set {OVERLAYS_SETTING} to the directory that holds it"
        )
    try:
        read_config(real, policy.max_bytes)
    except OverlayRefusedError:
        raise
    except OSError as error:
        raise OverlayRefusedError(
            f"config_file {str(config_file)!r} cannot be read: {error.strerror or error}"
        ) from None
    return real


def read_config(path: Path, max_bytes: int = DEFAULT_MAX_CONFIG_BYTES) -> str:
    """The text of `path`, a regular file of at most `max_bytes`, never read whole before that
    is known: opened without blocking (a FIFO would hold the thread for good), checked with
    fstat (/dev/zero and directories are refused before a byte is read), then at most
    max_bytes + 1 bytes read (a file that grew meanwhile is refused too)."""
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        mode = os.fstat(descriptor).st_mode
        if not stat.S_ISREG(mode):
            raise OverlayRefusedError(f"config file {path} is {_file_kind(mode)}, not a regular file: give a YAML file")
        chunks: list[bytes] = []
        remaining = max_bytes + 1
        while remaining > 0 and (chunk := os.read(descriptor, min(remaining, 65_536))):
            chunks.append(chunk)
            remaining -= len(chunk)
    finally:
        os.close(descriptor)
    data = b"".join(chunks)
    if len(data) > max_bytes:
        raise OverlayRefusedError(
            f"config file {path} is larger than {max_bytes} bytes ({MAX_BYTES_SETTING}): "
            f"shorten it, or have the backend's operator raise {MAX_BYTES_SETTING}"
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise OverlayRefusedError(
            f"config file {path} is not UTF-8 text (byte {error.start}): give a YAML file"
        ) from None


def _file_kind(mode: int) -> str:
    kinds = {
        stat.S_ISDIR: "a directory",
        stat.S_ISCHR: "a character device",
        stat.S_ISBLK: "a block device",
        stat.S_ISFIFO: "a FIFO",
        stat.S_ISSOCK: "a socket",
    }
    return next((kind for test, kind in kinds.items() if test(mode)), "no regular file")


def config_files(variant: str | None, config_file: Path | None, overlays: OverlayPolicy | None = None) -> list[Path]:
    """The --config files of a lab Collector: the base, then the shipped variant's overlay or
    the user's own overlay file (exactly one of the two), which `overlays` must allow (without
    a policy only the lab's own directory does)."""
    if (variant is None) == (config_file is None):
        raise ValueError("give exactly one of a shipped variant and an overlay file")
    if config_file is not None:
        return [BASE_CONFIG, checked_overlay(config_file, overlays or OverlayPolicy(None))]
    shipped = VARIANTS.get(variant or "")
    if shipped is None:
        known = ", ".join(VARIANTS) or "none (is collector-pipelines/lab missing?)"
        raise PipelineConfigError(
            [_error(LAB_DIR, None, None, f"no shipped pipeline variant named {variant!r}; shipped: {known}")]
        )
    return [BASE_CONFIG, shipped.overlay]


def lab_environment(
    *,
    otlp_grpc: str,
    export: str,
    health: str,
    metrics_port: int,
    downstreams: Sequence[str] = (),
    downstream_name: str | None = None,
    extra: dict[str, str] | None = None,
) -> dict[str, str]:
    """The LAB_* variables a lab config reads. `downstreams` are the loadbalancing targets
    (LAB_DOWNSTREAM_A, _B); `downstream_name` names a downstream Collector; `extra` holds a
    variant's own settings (LAB_MEMORY_LIMIT_MIB, ...) and never overrides the endpoints."""
    if len(downstreams) > LOADBALANCING_DOWNSTREAMS:
        raise ValueError(f"the lab configs route to at most {LOADBALANCING_DOWNSTREAMS} downstreams")
    env = dict(extra or {})
    env |= {
        "LAB_OTLP_GRPC_ENDPOINT": otlp_grpc,
        "LAB_EXPORT_ENDPOINT": export,
        "LAB_HEALTH_ENDPOINT": health,
        "LAB_METRICS_PORT": str(metrics_port),
    }
    env |= {f"LAB_DOWNSTREAM_{letter}": target for letter, target in zip("AB", downstreams, strict=False)}
    if downstream_name is not None:
        env["LAB_DOWNSTREAM_NAME"] = downstream_name
    return env


def placeholder_environment(settings: dict[str, str] | None = None) -> dict[str, str]:
    """Every LAB_* variable any lab config reads, on placeholder loopback ports: enough for
    `validate` (which binds nothing) before a round has chosen its ports. `settings` are a
    variant's own LAB_* values."""
    return lab_environment(
        otlp_grpc="127.0.0.1:4317",
        export="127.0.0.1:4318",
        health="127.0.0.1:13133",
        metrics_port=8888,
        downstreams=("127.0.0.1:4319", "127.0.0.1:4320"),
        downstream_name="downstream-1",
        extra=settings,
    )


# -- the Collector binary ---------------------------------------------------------------------


class CollectorMissingError(FileNotFoundError):
    """The TraceTax Collector distribution has not been built on this machine."""


def collector_binary() -> Path:
    """The TraceTax Collector built from collector-pipelines/builder-config.yaml."""
    path = components.binary_path(components.COLLECTOR_BUILD)
    if not path.is_file() or not os.access(path, os.X_OK):
        raise CollectorMissingError(
            f"the TraceTax Collector is not built (expected {path}): run `make up` or `make stack-build`"
        )
    return path


# -- validation -------------------------------------------------------------------------------


class PipelineConfigError(ValueError):
    """Config files a Collector would refuse. Each error: {"file", "line" (1-based or None),
    "component" (a component id such as "batch/lab", or None), "msg" (what is wrong and what
    to do)}."""

    def __init__(self, errors: list[dict[str, Any]]) -> None:
        self.errors = errors
        super().__init__(self.__str__())

    def __str__(self) -> str:
        lines = []
        for error in self.errors:
            where = error["file"] + (f":{error['line']}" if error.get("line") else "")
            component = f" {error['component']}:" if error.get("component") else ""
            lines.append(f"{where}:{component} {error['msg']}")
        return "invalid Collector pipeline config:\n" + "\n".join(f"  {line}" for line in lines)


def _error(file: Path | str, line: int | None, component: str | None, msg: str) -> dict[str, Any]:
    return {"file": str(file), "line": line, "component": component, "msg": msg}


class _UniqueKeyLoader(yaml.SafeLoader):
    """SafeLoader that refuses a repeated mapping key, as the Collector's YAML parser does
    (PyYAML alone would silently keep the last one)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Hashable, Any]:
        seen: dict[Any, yaml.Mark] = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if isinstance(key, Hashable) and key in seen and key != "<<":
                raise yaml.constructor.ConstructorError(
                    f"while reading the mapping that starts at line {node.start_mark.line + 1}",
                    node.start_mark,
                    f"key {key!r} is repeated (first at line {seen[key].line + 1}); keep one",
                    key_node.start_mark,
                )
            if isinstance(key, Hashable):
                seen[key] = key_node.start_mark
        return super().construct_mapping(node, deep=deep)


def yaml_errors(path: Path, max_bytes: int = DEFAULT_MAX_CONFIG_BYTES) -> list[dict[str, Any]]:
    """Whether `path` is readable YAML holding a mapping; each problem with its line."""
    try:
        text = read_config(path, max_bytes)
    except OverlayRefusedError as error:
        return [_error(path, None, None, str(error))]
    except OSError as error:
        return [_error(path, None, None, f"cannot read the config file: {error.strerror or error}")]
    try:
        document = yaml.load(text, Loader=_UniqueKeyLoader)  # noqa: S506 - a SafeLoader subclass
    except yaml.MarkedYAMLError as error:
        line = error.problem_mark.line + 1 if error.problem_mark else None
        problem = error.problem or str(error)
        return [_error(path, line, None, f"not valid YAML: {problem}; fix the YAML at this line")]
    except yaml.YAMLError as error:
        return [_error(path, None, None, f"not valid YAML: {error}")]
    if document is not None and not isinstance(document, dict):
        kind = type(document).__name__
        return [_error(path, 1, None, f"a Collector config is a mapping of sections (receivers, ...), not a {kind}")]
    return []


def validate(
    files: list[Path],
    env: dict[str, str],
    collector: Path | None = None,
    max_bytes: int = DEFAULT_MAX_CONFIG_BYTES,
    timeout_s: float = VALIDATE_TIMEOUT_S,
) -> None:
    """Raise PipelineConfigError unless the Collector accepts `files` merged in order with the
    LAB_* variables `env` (ports are not bound, so not checked). Checks the YAML first, then
    runs `<collector> validate` with nothing of this process's environment (see
    validation_environment); its message is redacted before it is raised. A missing Collector
    raises CollectorMissingError."""
    errors = [error for path in files for error in yaml_errors(path, max_bytes)]
    if errors:
        raise PipelineConfigError(errors)
    binary = collector if collector is not None else collector_binary()
    argv = [str(binary), "validate", *(f"--config=file:{path}" for path in files)]
    with tempfile.TemporaryDirectory(prefix="tracetax-validate-") as home:
        try:
            result = subprocess.run(
                argv,
                env=validation_environment(env, Path(home)),
                cwd=home,
                capture_output=True,
                text=True,
                timeout=timeout_s,
                check=False,
            )
        except subprocess.TimeoutExpired as error:
            raise PipelineConfigError(
                [_error(files[-1], None, None, f"`{binary.name} validate` did not finish in {timeout_s:.0f}s")]
            ) from error
    if result.returncode != 0:
        message = collector_message(result.stderr or result.stdout)
        own_input = [*argv, *env.values(), *(_text_or_empty(path, max_bytes) for path in files)]
        raise PipelineConfigError([locate(redact(message, own_input), files, max_bytes)])


def validation_environment(env: dict[str, str], home: Path) -> dict[str, str]:
    """All a validating Collector sees: PATH, a HOME of its own (an empty temporary directory)
    and the LAB_* variables its configs read. Not the backend's environment: a config's
    `${env:...}` must find nothing of it (a database URL, a token)."""
    foreign = sorted(name for name in env if not name.startswith("LAB_"))
    if foreign:
        raise ValueError(f"a lab Collector is given LAB_* variables only, not {', '.join(foreign)}")
    return {"PATH": os.environ.get("PATH", os.defpath), "HOME": str(home), **env}


def _text_or_empty(path: Path, max_bytes: int = DEFAULT_MAX_CONFIG_BYTES) -> str:
    try:
        return read_config(path, max_bytes)
    except (OSError, ValueError):
        return ""


# -- from the Collector's message to a file and line -----------------------------------------

# The Collector wraps decoding errors in these phrases; they say nothing about the config.
NOISE = (
    "failed to get config: ",
    "cannot unmarshal the configuration: ",
    "decoding failed due to the following error(s):",
    "cannot resolve the configuration: ",
)


def collector_message(output: str) -> str:
    """The Collector's error on one line, from its `Error:` line on, minus the wrapping."""
    lines = output.strip().splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith("Error: ")), 0)
    text = "\n".join(lines[start:]).removeprefix("Error: ")
    for phrase in NOISE:
        text = text.replace(phrase, "")
    parts = [part.strip() for part in text.splitlines() if part.strip()]
    return " ".join(parts) or "the Collector refused the config"


@dataclass(frozen=True)
class Finding:
    """What a Collector message points at: a component, optionally one of its settings, and
    whether the component is named in a pipeline list rather than defined."""

    component: str | None
    setting: str | None
    referenced: bool
    hint: str


# Each: the message pattern, and what it means for where to look and what to do.
UNKNOWN_TYPE = re.compile(r"'(?P<kind>\w+)' unknown type: \"(?P<type>[^\"]+)\" for id: \"(?P<id>[^\"]+)\"")
NOT_CONFIGURED = re.compile(r"references (?P<kind>\w+) \"(?P<id>[^\"]+)\" which is not configured")
READING = re.compile(r"error reading configuration for \"(?P<id>[^\"]+)\"")
INVALID_KEYS = re.compile(r"has invalid keys: (?P<keys>[\w.\-, ]+)")
QUOTED_SETTING = re.compile(r"'(?P<key>[\w.]+)'")
COMPONENT_PREFIX = re.compile(r"^(?P<kind>receivers|processors|exporters|extensions|connectors)::(?P<id>[^:\s]+): ")
PIPELINE_PREFIX = re.compile(r"^service::pipelines::(?P<id>[^:\s]+): ")
CREATE_FAILED = re.compile(r"failed to create \"(?P<id>[^\"]+)\" (?P<kind>\w+)")


def _setting_after(message: str, start: int) -> str | None:
    invalid = INVALID_KEYS.search(message, start)
    if invalid:
        return invalid.group("keys").split(",")[0].strip()
    quoted = QUOTED_SETTING.search(message, start)
    return quoted.group("key").split(".")[0] if quoted else None


def finding(message: str) -> Finding:
    """Which component the Collector's message is about, and the advice for it."""
    if match := UNKNOWN_TYPE.search(message):
        return Finding(
            match["id"],
            None,
            False,
            f"this Collector has no {match['kind'].rstrip('s')} of type {match['type']!r}; use one of the types "
            "the message lists (collector-pipelines/builder-config.yaml is what is compiled in)",
        )
    if match := NOT_CONFIGURED.search(message):
        return Finding(
            match["id"],
            None,
            True,
            f"define {match['id']} under `{match['kind']}s:` or remove it from the pipeline's {match['kind']}s list",
        )
    if match := READING.search(message):
        setting = _setting_after(message, match.end())
        return Finding(match["id"], setting, False, _setting_hint(message, setting))
    if (match := COMPONENT_PREFIX.search(message)) or (match := CREATE_FAILED.search(message)):
        setting = _setting_after(message, match.end())
        return Finding(match["id"], setting, False, _setting_hint(message, setting))
    if match := PIPELINE_PREFIX.search(message):
        return Finding(match["id"], None, False, "fix the pipeline as the message says")
    if match := INVALID_KEYS.search(message):
        return Finding(None, match["keys"].split(",")[0].strip(), False, "remove or rename the key the message names")
    return Finding(None, None, False, "fix what the message says")


def _setting_hint(message: str, setting: str | None) -> str:
    if INVALID_KEYS.search(message):
        return f"remove or rename `{setting}`: the component has no such setting in Collector v0.160"
    if setting:
        return f"fix the value of `{setting}` (check the LAB_* variable it reads, if any)"
    return "fix the component's settings as the message says"


def locate(message: str, files: list[Path], max_bytes: int = DEFAULT_MAX_CONFIG_BYTES) -> dict[str, Any]:
    """One error for the Collector's `message`, at the line of the component it names in the
    last file that mentions it (the overlay wins a merge), else at the last file."""
    found = finding(message)
    for path in reversed(files):
        line = _line_in(path, found, max_bytes)
        if line is not None:
            return _error(path, line, found.component, f"{message} — {found.hint}")
    return _error(files[-1] if files else "", None, found.component, f"{message} — {found.hint}")


def _line_in(path: Path, found: Finding, max_bytes: int) -> int | None:
    lines = _text_or_empty(path, max_bytes).splitlines()
    if not lines:
        return None
    if found.component is None:
        return _key_line(lines, found.setting, 0, len(lines)) if found.setting else None
    if found.referenced:
        return _reference_line(lines, found.component)
    start = _key_line(lines, found.component, 0, len(lines))
    if start is None or found.setting is None:
        return start
    # The setting within the component's block, when this file sets it; else the component.
    inner = _key_line(lines, found.setting, start, _block_end(lines, start - 1))
    return inner or start


def _key_pattern(key: str) -> re.Pattern[str]:
    return re.compile(rf"^\s*(?:-\s+)?[\"']?{re.escape(key)}[\"']?\s*:(?:\s|$)")


def _key_line(lines: list[str], key: str, start: int, end: int) -> int | None:
    """1-based line of `key:` between lines[start:end]."""
    pattern = _key_pattern(key)
    return next((i + 1 for i in range(start, end) if pattern.match(lines[i])), None)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _block_end(lines: list[str], index: int) -> int:
    """Index just past the block under the key at lines[index] (more-indented lines)."""
    own = _indent(lines[index])
    for i in range(index + 1, len(lines)):
        stripped = lines[i].strip()
        if stripped and not stripped.startswith("#") and _indent(lines[i]) <= own:
            return i
    return len(lines)


def _reference_line(lines: list[str], component: str) -> int | None:
    """1-based line where `component` is listed (`[a, b]` or `- b`), outside comments."""
    pattern = re.compile(rf"(?:^\s*-\s*|[\[,]\s*){re.escape(component)}\s*(?:[\],]|$)")
    for number, line in enumerate(lines, start=1):
        if pattern.search(line.split("#", 1)[0]):
            return number
    return None
