"""The spec of a service experiment (`subject: service`): which service, in which
configurations, under which load.

Specs arrive as JSON (API) or YAML (CLI) and are validated here; every error names its field.
Whether a demo service exists and supports a processor is checked against the catalog in
spec/catalog.py, since that needs the service manifests; which subject a spec is, in
tracetax.subjects.union.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    ConfigDict,
    Field,
    field_validator,
    model_validator,
)

from tracetax.demos import zero_code
from tracetax.demos.catalog import ConcurrencyKnob
from tracetax.spec.base import SubjectSpec, require_one_baseline_and_unique_names
from tracetax.spec.inputs import (
    ARGV_ITEMS,
    BODY_CHARS,
    ENV_ENTRIES,
    FILE_PATH_CHARS,
    HEADER_ENTRIES,
    IDENTIFIER_CHARS,
    METHOD_CHARS,
    NAME_CHARS,
    QUERY_ENTRIES,
    SEED_MAX,
    SEED_MIN,
    SIDE_BY_SIDE_DEFAULT_MAX_S,
    URL_PATH_CHARS,
    ArgvItem,
    EnvKey,
    EnvValue,
    HeaderName,
    HeaderValue,
    InputModel,
    QueryKey,
    QueryValue,
    SideBySideTiming,
)
from tracetax.spec.otel_env import local_variable_errors
from tracetax.spec.presets import PRESETS
from tracetax.spec.provenance import Provenance

PROCESSORS = ("none", "simple", "batch", "agent", "ebpf")
NAME_PATTERN = r"^[a-z0-9][a-z0-9._%-]{0,39}$"
ENV_KEY = re.compile(r"^OTEL_[A-Z0-9_]+$")


# Every round of every configuration starts the service and stops it: the spec's estimate counts
# this long for each (published as ExperimentSpec's `x-estimate`, which the UI's estimate reads).
STARTUP_S = 3.0
STOP_S = 2.0
# After a phase's services stop, the Collector forwards and counts what they sent (subjects/service/runner.py).
SETTLE_S = 2.5
# Common OpenTelemetry variables the UI suggests for a configuration's env (any OTEL_* name is
# accepted): published as ConfigurationSpec's `x-otel-suggestions`.
OTEL_SUGGESTIONS = (
    "OTEL_BSP_MAX_QUEUE_SIZE",
    "OTEL_BSP_MAX_EXPORT_BATCH_SIZE",
    "OTEL_BSP_SCHEDULE_DELAY",
    "OTEL_BSP_EXPORT_TIMEOUT",
    "OTEL_BLRP_MAX_QUEUE_SIZE",
    "OTEL_BLRP_MAX_EXPORT_BATCH_SIZE",
    "OTEL_BLRP_SCHEDULE_DELAY",
    "OTEL_TRACES_SAMPLER",
    "OTEL_TRACES_SAMPLER_ARG",
    "OTEL_EXPORTER_OTLP_PROTOCOL",
    "OTEL_EXPORTER_OTLP_COMPRESSION",
    "OTEL_EXPORTER_OTLP_TIMEOUT",
    "OTEL_METRIC_EXPORT_INTERVAL",
    "OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT",
    "OTEL_SPAN_EVENT_COUNT_LIMIT",
)


class DemoServiceRef(InputModel):
    """One of the demo services under instrumented-services/."""

    kind: Literal["demo"] = "demo"
    language: str = Field(min_length=1, max_length=IDENTIFIER_CHARS, examples=["go"])


COMMAND_LANGUAGES = ("python", "java", "node", "go", "other")


# Where a command service's argv takes the port TraceTax picks for each instance.
PORT_PLACEHOLDER = "{port}"
PPROF_PORT_PLACEHOLDER = "{pprof_port}"


class CommandServiceRef(InputModel):
    """A user's own service: an argv run without a shell, listening on `port`, or on the port
    TraceTax picks and writes where argv says `{port}` (then its configurations can run side by
    side, each instance on its own port; `{pprof_port}` likewise for a Go service's pprof).

    Its configurations differ only by standard OTEL_* variables and by how the process is
    launched (`processor`): `none` starts it as it is with OTEL_SDK_DISABLED=true and no agent,
    `agent` under its language's zero-code instrumentation (docs/your-service.md), `batch` as it
    is, instrumented by its own SDK and configured by the OTEL_* variables, `ebpf` under Go's
    eBPF auto-instrumentation. A leading `~` in `cwd` and `argv[0]` is the backend's home."""

    # The languages `processor: agent` runs under a zero-code agent, for the UI's choices.
    model_config = ConfigDict(json_schema_extra={"x-agent-languages": list(zero_code.AGENT_LANGUAGES)})

    kind: Literal["command"]
    argv: list[ArgvItem] = Field(min_length=1, max_length=ARGV_ITEMS, examples=[["./my-service", "--flag"]])
    cwd: str | None = Field(default=None, max_length=FILE_PATH_CHARS)
    port: int | None = Field(
        default=None,
        ge=1,
        le=65535,
        description="The port the service listens on, when argv has no `{port}`. A fixed port lets one instance run "
        "at a time: its configurations are then measured one at a time, never side by side.",
    )
    health_path: str = Field(default="/healthz", pattern=r"^/", max_length=URL_PATH_CHARS)
    service_name: str = Field(default="tracetax-user-service", min_length=1, max_length=NAME_CHARS)
    language: Literal["python", "java", "node", "go", "other"] = Field(
        default="other",
        description="The service's runtime: which zero-code agent `agent` loads (python: opentelemetry-instrument, "
        "java: -javaagent, node: auto-instrumentations-node) and which stack sampler is tried first. "
        "`other`: no agent; stacks from the runtime detected when it runs.",
    )
    spans_per_request: float | None = Field(
        default=None,
        ge=0,
        le=10_000,
        description="Spans one request produces, if you know it: the ledger's `expected` when the SDK reports no "
        "processed-spans counter of its own. Unset and no counter: expected is unknown and no loss is claimed.",
    )
    pprof_port: int | None = Field(
        default=None,
        ge=1,
        le=65535,
        description="A Go service's net/http/pprof port, if it serves one: its stacks are sampled from there. "
        "Or write `{pprof_port}` in argv and TraceTax picks one per instance.",
    )
    startup_timeout_s: float = Field(
        default=60, gt=0, le=600, description="How long the service may take to answer its health path."
    )

    @field_validator("argv")
    @classmethod
    def program_named(cls, argv: list[str]) -> list[str]:
        if not argv[0].strip():
            raise ValueError("argv[0] must name the program to run (argv is a list, never a shell line)")
        return argv

    @model_validator(mode="after")
    def pprof_is_a_go_service(self) -> CommandServiceRef:
        if self.pprof_port is not None and self.pprof_port == self.port:
            raise ValueError("pprof_port must differ from port (the load would be sent to the profiler)")
        return self

    @model_validator(mode="after")
    def one_way_to_each_port(self) -> CommandServiceRef:
        if self.port is None and not self.port_placeholder:
            raise ValueError(
                "say where the service listens: set service.port, or write {port} in service.argv "
                '(e.g. ["./my-service", "--listen", ":{port}"]) and TraceTax picks a free port per instance'
            )
        if self.port is not None and self.port_placeholder:
            raise ValueError("service.argv has {port} and service.port is set: give one of them, not both")
        if self.pprof_port is not None and self.pprof_placeholder:
            raise ValueError("service.argv has {pprof_port} and service.pprof_port is set: give one of them, not both")
        return self

    @property
    def port_placeholder(self) -> bool:
        return any(PORT_PLACEHOLDER in item for item in self.argv)

    @property
    def pprof_placeholder(self) -> bool:
        return any(PPROF_PORT_PLACEHOLDER in item for item in self.argv)

    @property
    def runs_twice(self) -> bool:
        """Whether two instances can live at once: every port it opens is picked per instance."""
        return self.port_placeholder and self.pprof_port is None

    def expanded_argv(self, port: int | None = None, pprof_port: int | None = None) -> list[str]:
        """argv with a leading `~` expanded and `{port}` / `{pprof_port}` replaced by the instance's ports."""
        program = str(Path(self.argv[0]).expanduser()) if self.argv[0].startswith("~") else self.argv[0]
        replacements = {PORT_PLACEHOLDER: port, PPROF_PORT_PLACEHOLDER: pprof_port}
        argv = []
        for item in (program, *self.argv[1:]):
            for placeholder, value in replacements.items():
                if value is not None:
                    item = item.replace(placeholder, str(value))
            argv.append(item)
        return argv

    def expanded_cwd(self) -> Path:
        return Path(self.cwd or ".").expanduser()


ServiceRef = Annotated[DemoServiceRef | CommandServiceRef, Field(discriminator="kind")]


CONCURRENCY_KNOBS: tuple[ConcurrencyKnob, ...] = ("threads", "workers", "gomaxprocs")


class Concurrency(InputModel):
    """How many requests the service serves at once, and on how many cores: a study's dimension
    (seed 000: the batch processor's CPU and context switches per span rise with the producer
    threads). Each is set through the service's own knob, never a free-form environment; unset
    keeps the service's default. Which knobs a service has is checked against its manifest."""

    threads: int | None = Field(
        default=None, ge=1, le=1024, description="Request worker threads (the Java demo's HTTP executor)."
    )
    workers: int | None = Field(
        default=None,
        ge=1,
        le=64,
        description="Worker processes sharing the port (the Python demo's uvicorn workers, the Node demo's cluster).",
    )
    gomaxprocs: int | None = Field(
        default=None,
        ge=1,
        le=256,
        description="Go's GOMAXPROCS: threads running Go code at once (demo or Go command).",
    )
    cores: int | None = Field(
        default=None,
        ge=1,
        le=1024,
        description="Cores the service is pinned to: the first N of the measurement's service cores "
        "(TRACETAX_SERVICE_CPUS or the layout rule). Unset: all of them.",
    )

    def knobs(self) -> dict[ConcurrencyKnob, int]:
        """The knobs set, by name (cores excluded: the engine applies it, not the service)."""
        return {knob: value for knob in CONCURRENCY_KNOBS if (value := getattr(self, knob)) is not None}


class ConfigurationSpec(InputModel):
    """One OpenTelemetry configuration; `preset` fills processor/env/baseline defaults."""

    model_config = ConfigDict(json_schema_extra={"x-otel-suggestions": list(OTEL_SUGGESTIONS)})

    name: str = Field(pattern=NAME_PATTERN)
    processor: Literal["none", "simple", "batch", "agent", "ebpf"]
    env: dict[EnvKey, EnvValue] = Field(default_factory=dict, max_length=ENV_ENTRIES)
    baseline: bool = False
    preset: str | None = Field(default=None, max_length=IDENTIFIER_CHARS)
    inject_busy_us: int = Field(
        default=0,
        ge=0,
        le=1_000_000,
        description="A known cost for checking the harness: the demo service busy-waits this many microseconds "
        "of CPU time in every request, on the request thread's CPU clock, so a preempted spin still costs that "
        "much (TRACETAX_INJECT_BUSY_US). 0: none.",
    )
    inject_background_us: int = Field(
        default=0,
        ge=0,
        le=1_000_000,
        description="A known cost off the request path, for checking the harness: a background thread of the demo "
        "service busy-waits this many microseconds of CPU time every `inject_background_period_ms` and touches no "
        "request (TRACETAX_INJECT_BACKGROUND_US). Its CPU must show; requests feel it only through the shared core. "
        "0: none.",
    )
    inject_background_period_ms: int = Field(
        default=2000,
        ge=1,
        le=3_600_000,
        description="Milliseconds between the background bursts of `inject_background_us` "
        "(TRACETAX_INJECT_BACKGROUND_PERIOD_MS).",
    )
    concurrency: Concurrency = Field(
        default_factory=Concurrency,
        description="Request concurrency and cores for this configuration (unset: the service's defaults).",
    )

    @model_validator(mode="before")
    @classmethod
    def expand_preset(cls, data: Any) -> Any:
        """Fill name, processor, env and baseline from a known preset. Anything else in
        `preset` (an unknown name, an object, a list) is left to the field's own validation,
        so the error names `preset`; the name and processor it could not fill are not also
        reported missing. An `env` that is not an object is left to its field likewise."""
        if not isinstance(data, dict) or data.get("preset") is None:
            return data
        preset = PRESETS.get(data["preset"]) if isinstance(data["preset"], str) else None
        if preset is None:
            return {"name": "preset", "processor": "none", **data}  # the preset's error fails it anyway
        env = data.get("env")
        return {
            **data,  # fields a preset does not fill (inject_busy_us) pass through as given
            "name": data.get("name", preset.name),
            "processor": data.get("processor", preset.processor),
            "env": {**preset.env, **env} if isinstance(env, dict) else preset.env if env is None else env,
            "baseline": data.get("baseline", preset.baseline),
            "preset": preset.name,
        }

    @field_validator("preset")
    @classmethod
    def known_preset(cls, preset: str | None) -> str | None:
        if preset is not None and preset not in PRESETS:
            raise ValueError(f"unknown preset {preset!r}; accepted: {', '.join(PRESETS)}")
        return preset

    @field_validator("env")
    @classmethod
    def only_otel_variables(cls, env: dict[str, str]) -> dict[str, str]:
        bad = [key for key in env if not ENV_KEY.match(key)]
        if bad:
            raise ValueError(
                f"only OTEL_* variables may be overridden, got {', '.join(sorted(bad))} "
                "(the processor is chosen with `processor`, not TRACETAX_PROCESSOR)"
            )
        if local := local_variable_errors(env):
            raise ValueError("; ".join(local))
        return env

    def exports(self, signal: Literal["traces", "logs", "metrics"]) -> bool:
        """Whether this configuration's SDK exports the signal: it is instrumented, the SDK is
        not disabled and the signal's exporter is not `none` (the standard variables)."""
        if self.processor == "none" or self.env.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
            return False
        return self.env.get(f"OTEL_{signal.upper()}_EXPORTER", "otlp").strip().lower() != "none"

    def exports_anything(self) -> bool:
        """Whether this configuration exports any signal: when it exports none, there is
        nothing for the Collector to settle after its service stops."""
        return any(self.exports(signal) for signal in ("traces", "logs", "metrics"))


HTTP_METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")
BODYLESS_METHODS = ("GET", "HEAD")  # a request with one of these carries no body
HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")  # an RFC 9110 token


# The demo services' request: the /work handler, 1000 busy iterations and 5 spans.
DEFAULT_PATH = "/work"
DEFAULT_QUERY: dict[str, str | int] = {"iters": 1000, "spans": 5}


class WeightedPath(InputModel):
    """One request target of a mix: a path (with its query, if any) and its share of requests."""

    path: str = Field(pattern=r"^/[^\s#]*$", max_length=URL_PATH_CHARS, examples=["/get?x=1"])
    weight: int = Field(default=1, ge=1, le=100)


class Burst(InputModel):
    """A burst inside the measured phase: the rate multiplied for a few seconds, what makes a
    bounded queue drop (seed 000). Latency stays coordinated-omission corrected throughout."""

    start_s: float = Field(ge=0, le=3600, description="Seconds into the measured phase when the burst starts.")
    duration_s: float = Field(gt=0, le=600)
    multiplier: float = Field(gt=1, le=100, description="The burst's rate is `rate` times this.")


# The most requests per second one load sends, and all the loads of a phase together (the
# side-by-side phase runs one load per instance of every configuration at once).
MAX_RATE = 100_000


class LoadSpec(SideBySideTiming, InputModel):
    # The methods `method` takes and those whose request carries no body, for the UI's choices.
    model_config = ConfigDict(
        json_schema_extra={"x-http-methods": list(HTTP_METHODS), "x-bodyless-methods": list(BODYLESS_METHODS)}
    )

    rate: float = Field(gt=0, le=MAX_RATE, description="Open-model arrival rate, requests per second.")
    warmup_s: float = Field(default=5, ge=0, le=600)
    duration_s: float = Field(default=15, gt=0, le=3600, description="Measured open-model phase.")
    connections: int = Field(default=16, ge=1, le=1000)
    path: str = Field(default=DEFAULT_PATH, pattern=r"^/[^\s?#]*$", max_length=URL_PATH_CHARS)
    query: dict[QueryKey, QueryValue | int] = Field(
        default_factory=lambda: dict(DEFAULT_QUERY), max_length=QUERY_ENTRIES
    )
    paths: list[WeightedPath] | None = Field(
        default=None,
        min_length=1,
        max_length=20,
        description="A mix of request targets, each chosen at random with its weight (instead of path and query).",
    )
    method: str = Field(default="GET", max_length=METHOD_CHARS, description=f"HTTP method: {', '.join(HTTP_METHODS)}.")
    headers: dict[HeaderName, HeaderValue] = Field(
        default_factory=dict, max_length=HEADER_ENTRIES, description="Request headers, sent with every request."
    )
    body: str | None = Field(default=None, max_length=BODY_CHARS, description="Request body, sent with every request.")
    burst: Burst | None = Field(
        default=None, description="A burst in the measured phase (the warm-up and stacks phases stay at `rate`)."
    )
    max_throughput_s: float = Field(
        default=5, ge=0, le=600, description="Closed-loop phase finding the maximum throughput; 0 skips it."
    )
    stacks_s: float = Field(
        default=5,
        ge=2,
        le=600,
        description="Stacks phase after the measured one: the same load with the stack sampler attached "
        "(never measured). Only when sample_stacks is on.",
    )
    side_by_side_s: float | None = Field(
        default=None,
        ge=0,
        le=3600,
        description="Side-by-side phase at the start of every round: all of the round's configurations live at once "
        "on the service cores, each under its own load at `rate`, so that CPU per request, RSS and p50 are paired "
        "under the same core speed (docs/diagnostics.md). Unset: as long as `duration_s`, at most 10 s. 0 measures "
        "them one at a time, as the tails always are.",
    )
    side_by_side_warmup_s: float | None = Field(
        default=None,
        ge=0,
        le=600,
        description="Warm-up of the side-by-side phase, all configurations at once. Unset: as long as `warmup_s`.",
    )
    side_by_side_instances: int = Field(
        default=1,
        ge=1,
        le=4,
        description="Live instances of each configuration in the side-by-side phase, each under its own load at "
        "`rate`, their figures pooled. Two fresh processes of one build differ by a few percent (a JVM's compiled "
        "code): more instances average that out within the round, where more rounds would cost wall time. For "
        "light configurations: the service cores carry that many times the phase's load (two instances of a "
        "configuration that takes 40% of the core alone would fill it), and a configuration's own instances "
        "preempt one another, which adds to a heavy configuration's CPU per request (+6% at a third of the core "
        'each; docs/diagnostics.md, "Side by side").',
    )

    @field_validator("method")
    @classmethod
    def known_method(cls, method: str) -> str:
        if method.upper() not in HTTP_METHODS:
            raise ValueError(f"unknown HTTP method {method!r}; accepted: {', '.join(HTTP_METHODS)}")
        return method.upper()

    @field_validator("headers")
    @classmethod
    def valid_headers(cls, headers: dict[str, str]) -> dict[str, str]:
        for name, value in headers.items():
            if not HEADER_NAME.match(name):
                raise ValueError(f"{name!r} is not a valid header name")
            if "\r" in value or "\n" in value:
                raise ValueError(f"the value of header {name!r} has a line break")
        return headers

    @model_validator(mode="after")
    def one_kind_of_target(self) -> LoadSpec:
        # Compared with the defaults, not with what was given: a stored spec is dumped whole.
        demo_target = self.path != DEFAULT_PATH or self.query != DEFAULT_QUERY
        if self.paths is not None and demo_target:
            raise ValueError("give either `path` (with `query`) or `paths`, not both")
        if self.burst is not None and self.burst.start_s + self.burst.duration_s > self.duration_s:
            raise ValueError(
                f"the burst ends at {self.burst.start_s + self.burst.duration_s:g} s, after the measured phase "
                f"(duration_s {self.duration_s:g}): move burst.start_s or shorten burst.duration_s"
            )
        if self.body is not None and self.method in BODYLESS_METHODS:
            raise ValueError(f"a {self.method} request carries no body: set `method` (e.g. POST) or drop `body`")
        return self

    def url_path(self) -> str:
        from urllib.parse import urlencode

        return f"{self.path}?{urlencode(self.query)}" if self.query else self.path

    def steps(self) -> list[tuple[float, float]]:
        """The measured phase as (seconds, rate) steps: one, or three around a burst."""
        burst = self.burst
        if burst is None:
            return [(self.duration_s, self.rate)]
        after = self.duration_s - burst.start_s - burst.duration_s
        steps = [(burst.start_s, self.rate), (burst.duration_s, self.rate * burst.multiplier), (after, self.rate)]
        return [(seconds, rate) for seconds, rate in steps if seconds > 0]

    def requests_by_phase(self, sample_stacks: bool) -> dict[str, tuple[float, float]]:
        """Each open-model phase's (seconds, requests it sends), by the field giving its length:
        what the engine reads back row by row (the closed-loop phase keeps no rows)."""
        phases = {
            "warmup_s": (self.warmup_s, self.rate * self.warmup_s),
            "duration_s": (self.duration_s, sum(seconds * rate for seconds, rate in self.steps())),
        }
        if sample_stacks:
            phases["stacks_s"] = (self.stacks_s, self.rate * self.stacks_s)
        return phases

    def targets(self) -> list[tuple[str, int]]:
        """Every request target (path with its query) and its weight."""
        if self.paths is not None:
            return [(target.path, target.weight) for target in self.paths]
        return [(self.url_path(), 1)]

    def spans_per_request(self) -> int | None:
        """The demo services' spans per request (their `spans` query parameter)."""
        if self.paths is not None:
            return None
        value = self.query.get("spans")
        return int(value) if value is not None and str(value).isdigit() else None


# The metrics a precision may name: diagnostics/overhead.py's METRICS (the spec sits below
# diagnostics, so the names are repeated here; tests/spec/test_precision.py keeps them equal).
PrecisionMetric = Literal[
    "p50", "p90", "p99", "p99.9", "p99.99", "cpu_per_request_us", "rss_max_bytes", "max_throughput_rps"
]
# An experiment asking for a precision adds rounds up to this many, whatever its time budget.
# Each look of a precision-driven experiment has this many times the rounds of the one before.
LOOK_GROWTH = 1.5
MAX_PRECISION_ROUNDS = 60


class Precision(InputModel):
    """Add rounds until every named metric's interval is this narrow, or the time is spent.

    The intervals are then repeated confidence intervals (docs/diagnostics.md), valid however
    many rounds are added, and wider at each look than a fixed number of rounds would give."""

    metrics: list[PrecisionMetric] = Field(
        min_length=1, max_length=8, description="Metrics whose relative interval must reach the half-width."
    )
    half_width_pct: float | None = Field(
        default=None,
        gt=0,
        le=100,
        description="Target ± half-width of every named metric's relative interval, %. Unset only in a check "
        "(`tracetax check --max-wall-time`): rounds are then added until every budget line is conclusive.",
    )
    max_wall_time_s: float = Field(
        gt=0,
        le=86_400,
        description="Wall-time budget of the whole experiment, seconds: rounds are added while the next one fits.",
    )

    @field_validator("metrics")
    @classmethod
    def no_repeated_metric(cls, metrics: list[str]) -> list[str]:
        repeated = sorted({metric for metric in metrics if metrics.count(metric) > 1})
        if repeated:
            raise ValueError(f"each metric once; repeated: {', '.join(repeated)}")
        return metrics


class ExperimentSpec(SubjectSpec):
    model_config = ConfigDict(
        json_schema_extra={
            "x-estimate": {
                "startup_s": STARTUP_S,
                "stop_s": STOP_S,
                "settle_s": SETTLE_S,
                "side_by_side_default_max_s": SIDE_BY_SIDE_DEFAULT_MAX_S,
            }
        }
    )

    subject: Literal["service"] = Field(
        default="service", description="What is measured: a service (this spec) or a Collector pipeline (`collector`)."
    )
    name: str | None = Field(default=None, max_length=NAME_CHARS)
    service: ServiceRef
    configurations: list[ConfigurationSpec] = Field(min_length=1, max_length=12)
    load: LoadSpec
    rounds: int = Field(
        default=5,
        ge=1,
        le=50,
        description="Interleaved rounds. 5 by default: the paired interval's t factor over 3 rounds "
        "(4.3 / sqrt 3) is twice that over 5 (2.8 / sqrt 5); see docs/benchmarks.md (make bench-truth).",
    )
    seed: int = Field(default=0, ge=SEED_MIN, le=SEED_MAX)
    sample_stacks: bool = Field(
        default=True,
        description="Sample the service's stacks in a phase of their own after the measured one, under the same "
        "load, to show where export runs (demo services only). The sampler's cost never reaches a measured figure.",
    )
    precision: Precision | None = Field(
        default=None,
        description="Ask for a precision instead of a number of rounds: after `rounds`, rounds are added until "
        "every named metric's interval is within ±half_width_pct or max_wall_time_s is spent, with intervals "
        "valid under that optional stopping (repeated confidence intervals, wider than fixed-n ones).",
    )
    provenance: Provenance | None = Field(
        default=None,
        description="Where the run came from (repository, branch, commit, pull request, CI run): stored beside the "
        "spec, not in it, so it changes nothing that is measured or compared.",
    )

    @model_validator(mode="after")
    def one_baseline_and_unique_names(self) -> ExperimentSpec:
        require_one_baseline_and_unique_names(self.configurations)
        return self

    @model_validator(mode="after")
    def precision_fits(self) -> ExperimentSpec:
        precision = self.precision
        if precision is None:
            return self
        if len(self.configurations) < 2:
            raise ValueError(
                "precision needs a configuration besides the baseline: an interval is of a change against it"
            )
        if self.rounds < 2:
            raise ValueError("precision needs rounds of at least 2: the first interval is read after `rounds` rounds")
        estimate = self.estimated_seconds()
        if precision.max_wall_time_s < estimate:
            raise ValueError(
                f"precision.max_wall_time_s ({precision.max_wall_time_s:g} s) is less than the estimated time of "
                f"the spec's {self.rounds} rounds ({estimate:,.0f} s): raise it, or lower rounds"
            )
        return self

    @property
    def service_name(self) -> str:
        """OTEL_SERVICE_NAME of the measured service: what its telemetry is stored under."""
        service = self.service
        return service.service_name if isinstance(service, CommandServiceRef) else f"tracetax-demo-{service.language}"

    def spans_per_request(self) -> float | None:
        """Spans one request produces when known: a user's declared figure, or the demo's query."""
        service = self.service
        return service.spans_per_request if isinstance(service, CommandServiceRef) else self.load.spans_per_request()

    @property
    def baseline(self) -> ConfigurationSpec:
        return next(c for c in self.configurations if c.baseline)

    def configuration(self, name: str) -> ConfigurationSpec:
        return next(c for c in self.configurations if c.name == name)

    def estimated_seconds(self, startup_s: float = STARTUP_S) -> float:
        """Rough wall time: every round of every configuration starts, warms, measures, stops."""
        stacks = self.load.stacks_s if self.sample_stacks else 0.0
        per_run = startup_s + self.load.warmup_s + self.load.duration_s + stacks + self.load.max_throughput_s + STOP_S
        return (per_run * len(self.configurations) + self.side_by_side_seconds(startup_s)) * self.rounds

    def planned_looks(self) -> tuple[int, ...]:
        """The numbers of rounds after which the data may be read: `rounds`, then (with a
        precision) rounds growing by half each look (5, 8, 12, 18, ...) while the estimated end
        fits in max_wall_time_s, and last the most rounds that fit, up to MAX_PRECISION_ROUNDS.
        Few looks, not one per round: every look widens the repeated intervals (the critical
        value rises with the number of looks), so a look only where the interval has had room
        to narrow. The engine's SequentialDesign is made of these."""
        if self.precision is None:
            return (self.rounds,)
        per_round = self.estimated_seconds() / self.rounds
        most = min(MAX_PRECISION_ROUNDS, max(self.rounds, math.floor(self.precision.max_wall_time_s / per_round)))
        looks = [self.rounds]
        while looks[-1] < most:
            looks.append(min(most, max(looks[-1] + 1, math.ceil(looks[-1] * LOOK_GROWTH))))
        return tuple(looks)

    def max_rounds(self) -> int:
        """The most rounds this spec may run: its last planned look."""
        return self.planned_looks()[-1]

    def budgeted_seconds(self) -> float:
        """The wall time the spec may hold the machine for: max_wall_time_s with a precision,
        else the estimate of its rounds (what the operator's bound is checked against)."""
        return self.precision.max_wall_time_s if self.precision is not None else self.estimated_seconds()

    def side_by_side_seconds(self, startup_s: float = STARTUP_S) -> float:
        """Rough wall time of one round's side-by-side phase (0 when it does not run)."""
        if not self.runs_side_by_side():
            return 0.0
        return startup_s + self.load.side_by_side_warmup_seconds + self.load.side_by_side_seconds + STOP_S + SETTLE_S

    def runs_side_by_side(self) -> bool:
        """Whether each round starts with the side-by-side phase: asked for, more than one
        configuration, and a service that can run twice (a command service with `{port}`)."""
        service = self.service
        twice = not isinstance(service, CommandServiceRef) or service.runs_twice
        return self.load.side_by_side_seconds > 0 and len(self.configurations) > 1 and twice

    def side_by_side_loads(self) -> int:
        """The loads the side-by-side phase runs at once, each at load.rate: one per instance of
        every configuration (0 when the phase does not run)."""
        return len(self.configurations) * self.load.side_by_side_instances if self.runs_side_by_side() else 0

    def requests_by_phase(self) -> dict[str, tuple[float, float]]:
        """Each open-model phase's (seconds, requests every load of it sends), by the field
        giving its length: a configuration's own phases (LoadSpec.requests_by_phase) and, when
        it runs, the side-by-side phase's warm-up and window, every instance of every
        configuration counted."""
        phases = self.load.requests_by_phase(self.sample_stacks)
        loads = self.side_by_side_loads()
        if loads:
            load = self.load
            for field, seconds in (
                ("side_by_side_warmup_s", load.side_by_side_warmup_seconds),
                ("side_by_side_s", load.side_by_side_seconds),
            ):
                phases[field] = (seconds, load.rate * seconds * loads)
        return phases

    def requests_per_round(self) -> float:
        """Requests one round sends in its open-model phases: each configuration's own, and the
        side-by-side phase's."""
        own = sum(requests for _, requests in self.load.requests_by_phase(self.sample_stacks).values())
        together = sum(
            requests for field, (_, requests) in self.requests_by_phase().items() if field.startswith("side_by_side")
        )
        return own * len(self.configurations) + together

    def max_requests(self) -> float:
        """Requests the whole experiment may send in its open-model phases, over the most rounds
        it may run (a precision's last look). The closed-loop phase is bounded by its seconds."""
        return self.requests_per_round() * self.max_rounds()
