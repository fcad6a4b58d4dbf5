"""The commands that run a check from a CI pipeline: `tracetax check`'s flag grammar and the
defaults it sends (which the CLI reads from here too), and, for a stored check or a check
request, the request itself, the curl calls and the `tracetax check` command, with flags when
they say the request exactly, else reading it from a file (`--spec`). The check page and the
pipeline check form show what this builds (`GET /api/v1/checks/{id}/commands`, `POST
/api/v1/checks/commands`), so the UI keeps no copy of the CLI.

Light on purpose: `tracetax check` imports it at start, without the statistics or the database.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from tracetax.diagnostics.budget_lines import BUDGET_LINE_TEXT, PIPELINE_BUDGET_FIELDS
from tracetax.spec.presets import PRESETS
from tracetax.spec.provenance import HistoryGate

# What `tracetax check` sends when it is given no load flags: its own warm-up and no
# max-throughput phase (a service), its own warm-up (a pipeline); the rest it leaves to the API.
CLI_WARMUP_S = 2.0
CLI_MAX_THROUGHPUT_S = 0.0
CLI_QUERY_KEYS = ("iters", "spans")
COST_RATE_FLAG = "--cost-rate"
JUNIT_FILE = "tracetax-junit.xml"
SPEC_FILE = "tracetax-check.json"
_CHECK_NAME = re.compile(r"^check: (\S+) vs (\S+)$")
_OVERLAY = re.compile(r"\.ya?ml$")


# -- the flag grammar ------------------------------------------------------------------------------


def configuration_of(value: str, env: list[str]) -> dict[str, Any]:
    """`--baseline/--candidate VALUE`: a preset name (`batch-default`) or a processor (`batch`),
    plus KEY=VALUE OTEL_* overrides (`--candidate-env`)."""
    overrides = dict(item.split("=", 1) for item in env)
    if value in PRESETS:
        return {"preset": value, "env": overrides}
    return {"name": value, "processor": value, "env": overrides}


def variant_of(value: str) -> dict[str, Any]:
    """`--collector --baseline/--candidate VALUE`: a shipped pipeline variant (`batch-default`)
    or the path of your own overlay (*.yaml), named after its file."""
    if value.endswith((".yaml", ".yml")):
        return {"name": overlay_name(value), "config_file": str(Path(value).resolve())}
    return {"pipeline": value}


def overlay_name(path: str) -> str:
    """The name `tracetax check --collector` gives an overlay file: its stem, lower case, 40 at most."""
    return Path(path).stem[:40].lower()


# -- what a command says ----------------------------------------------------------------------------


class CliCommand(BaseModel):
    command: str
    flags: bool = Field(description="True when the flags say exactly this request; else it is read from a file.")
    reasons: list[str] = Field(description="Why the flags could not say it (empty when they can).")


class CheckCommands(BaseModel):
    """A check as CI runs it: its request (secrets as answers show them), `tracetax check` and curl."""

    request: dict[str, Any]
    cli: CliCommand
    curl: str


@dataclass(frozen=True)
class CheckParts:
    """What a stored check carries besides its experiment's spec (as CheckStatus answers it)."""

    budget: Mapping[str, Any]
    strict: bool
    provenance: Mapping[str, Any] | None = None
    against_history: Mapping[str, Any] | None = None


def shell_quote(word: str) -> str:
    return shlex.quote(word)


def _number(value: Any) -> str:
    """A number as the flags and JSON write it: 200 for 200.0, 0.5 as it is."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _without_nulls(values: Mapping[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in values.items() if value is not None}


def _api(base_url: str) -> str:
    return base_url.rstrip("/")


def request_names(experiment_name: str | None) -> tuple[str | None, str | None]:
    """ "check: batch-default vs none" -> the names the request gave (baseline, candidate)."""
    match = _CHECK_NAME.match(experiment_name or "")
    return (match.group(2), match.group(1)) if match else (None, None)


def _roles(configurations: list[dict[str, Any]]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The stored baseline and candidate (a check's experiment has these two)."""
    baseline = next((c for c in configurations if c.get("baseline")), configurations[0])
    candidate = next((c for c in configurations if c is not baseline), baseline)
    return baseline, candidate


def _history_request(check: CheckParts) -> dict[str, Any]:
    request: dict[str, Any] = {}
    if check.provenance:
        request["provenance"] = _without_nulls(check.provenance)
    if check.against_history:
        request["against_history"] = dict(check.against_history)
    return request


def _max_wall_time(spec: Mapping[str, Any]) -> float | None:
    """A check's max_wall_time_s: its experiment's precision without a half-width."""
    precision = spec.get("precision")
    if not precision or precision.get("half_width_pct") is not None:
        return None
    wall_time: float | None = precision.get("max_wall_time_s")
    return wall_time


# -- a service check --------------------------------------------------------------------------------


def _configuration_request(stored: dict[str, Any], name: str | None) -> dict[str, Any]:
    """A stored configuration as the request that makes it again: by its preset and the
    variables that differ from the preset's, or by name, processor and every variable."""
    env = stored.get("env") or {}
    preset = PRESETS.get(stored.get("preset") or "")
    preset_env = dict(preset.env) if preset is not None else {}
    if preset is not None and all(key in env for key in preset_env):
        request: dict[str, Any] = {"preset": preset.name}
        if name and name != preset.name:
            request["name"] = name
        if stored.get("processor") != preset.processor:
            request["processor"] = stored.get("processor")
        overrides = {key: value for key, value in env.items() if preset_env.get(key) != value}
        if overrides:
            request["env"] = overrides
        return request
    request = {"name": name or stored.get("preset") or stored.get("processor"), "processor": stored.get("processor")}
    if env:
        request["env"] = env
    return request


def check_request(check: CheckParts, spec: dict[str, Any]) -> dict[str, Any]:
    """The request that runs this service check again, from its experiment's stored spec."""
    baseline, candidate = _roles(spec["configurations"])
    baseline_name, candidate_name = request_names(spec.get("name"))
    request: dict[str, Any] = {
        "subject": "service",
        "service": spec["service"],
        "baseline": _configuration_request(baseline, baseline_name),
        "candidate": _configuration_request(candidate, candidate_name),
        "load": spec["load"],
        "budget": _without_nulls(check.budget),
        "rounds": spec.get("rounds", 3),
        "strict": check.strict,
    }
    if spec.get("seed"):
        request["seed"] = spec["seed"]
    if spec.get("sample_stacks"):
        request["sample_stacks"] = True
    wall_time = _max_wall_time(spec)
    if wall_time is not None:
        request["max_wall_time_s"] = wall_time
    return {**request, **_history_request(check)}


def _cli_spelling(stored: dict[str, Any]) -> tuple[str, dict[str, str]] | None:
    """How the CLI spells a stored configuration: the value for --baseline / --candidate and
    the --candidate-env overrides; None when no value and overrides make it."""
    env = stored.get("env") or {}
    for value in (stored.get("preset"), stored.get("processor")):
        if not value:
            continue
        base = configuration_of(value, [])
        preset = PRESETS.get(base.get("preset") or "")
        processor = preset.processor if preset is not None else base["processor"]
        base_env = dict(preset.env) if preset is not None else {}
        if processor != stored.get("processor") or not all(key in env for key in base_env):
            continue
        overrides = {key: v for key, v in env.items() if base_env.get(key) != v}
        if {**base_env, **overrides} == env:
            return value, overrides
    return None


def _cli_flag_problems(spec: dict[str, Any]) -> list[str]:
    """Why the CLI's flags cannot say this service check's spec (empty: they can)."""
    from tracetax.spec.service import LoadSpec  # the API's defaults, read where the API builds commands

    defaults = LoadSpec.model_fields
    problems: list[str] = []
    if spec["service"].get("kind") != "demo":
        problems.append("the service is a command of your own")
    load = spec["load"]
    if load.get("warmup_s", defaults["warmup_s"].default) != CLI_WARMUP_S:
        problems.append(f"a warm-up of {_number(load.get('warmup_s'))} s (the CLI uses {_number(CLI_WARMUP_S)} s)")
    if load.get("max_throughput_s", defaults["max_throughput_s"].default) != CLI_MAX_THROUGHPUT_S:
        problems.append(f"a max-throughput phase of {_number(load.get('max_throughput_s'))} s (the CLI skips it)")
    connections = defaults["connections"].default
    if load.get("connections", connections) != connections:
        problems.append(f"{load.get('connections')} connections (the CLI uses {connections})")
    if load.get("path", defaults["path"].default) != defaults["path"].default:
        problems.append(f"the path {load.get('path')}")
    query = load.get("query") or {}
    if sorted(query) != sorted(CLI_QUERY_KEYS) or not all(_is_number(query[key]) for key in query):
        problems.append("a query other than iters and spans")
    if spec.get("seed"):
        problems.append(f"seed {spec['seed']}")
    baseline, candidate = _roles(spec["configurations"])
    base = _cli_spelling(baseline)
    if base is None or base[1]:
        problems.append("the baseline's own variables (the CLI has no --baseline-env)")
    if _cli_spelling(candidate) is None:
        problems.append("the candidate's variables")
    return problems


def _is_number(value: Any) -> bool:
    try:
        float(value)
    except (TypeError, ValueError):
        return False
    return True


def _cli_budget_problems(budget: Mapping[str, Any]) -> list[str]:
    """A cost input other than the request rate that is not the API's default (a stored budget
    carries every input): the flags cannot say it."""
    from tracetax.diagnostics.cost import CostInputs  # the statistics: only where commands are built

    defaults = CostInputs()
    chosen = [
        key
        for key, value in (budget.get("cost") or {}).items()
        if key != "requests_per_s" and value is not None and value != getattr(defaults, key, None)
    ]
    return [f"cost inputs other than the request rate ({COST_RATE_FLAG})"] if chosen else []


def history_flags(check: CheckParts | Mapping[str, Any]) -> str | None:
    """What a check carries for its history, as the CLI's flags: `--branch main --commit abc123
    --against-history main:10 --history-max-growth-pct 5`; None when it carries none."""
    provenance = check.provenance if isinstance(check, CheckParts) else check.get("provenance")
    gate = check.against_history if isinstance(check, CheckParts) else check.get("against_history")
    flags: list[str] = []
    if provenance and provenance.get("branch"):
        flags.append(f"--branch {shell_quote(str(provenance['branch']))}")
    if provenance and provenance.get("commit"):
        flags.append(f"--commit {shell_quote(str(provenance['commit']))}")
    if gate:
        points = gate.get("points") or HistoryGate.model_fields["points"].default
        against = f"{gate['branch']}:{points}"
        flags.append(f"--against-history {shell_quote(against)}")
        growth, default = gate.get("max_growth_pct"), HistoryGate.model_fields["max_growth_pct"].default
        if growth is not None and growth != default:
            flags.append(f"--history-max-growth-pct {_number(growth)}")
    return " ".join(flags) if flags else None


def _budget_flags(budget: Mapping[str, Any], pipeline: bool) -> list[str]:
    return [
        f"{text.flag} {_number(budget[key])}"
        for key, text in BUDGET_LINE_TEXT.items()
        if (key in PIPELINE_BUDGET_FIELDS) == pipeline and budget.get(key) is not None
    ]


def _spec_file_command(base_url: str, request: dict[str, Any]) -> str:
    """The file fallback: the request written out, then `tracetax check --spec`."""
    return "\n".join(
        [
            f"cat > {SPEC_FILE} <<'EOF'",
            json.dumps(request, indent=2, ensure_ascii=False),
            "EOF",
            f"tracetax check --api {shell_quote(_api(base_url))} --spec {SPEC_FILE} --junit {JUNIT_FILE}",
        ]
    )


def service_cli_command(base_url: str, check: CheckParts, spec: dict[str, Any]) -> CliCommand:
    """The `tracetax check` command of a service check: with flags when they say it exactly."""
    reasons = [*_cli_flag_problems(spec), *_cli_budget_problems(check.budget)]
    if reasons:
        return CliCommand(
            command=_spec_file_command(base_url, check_request(check, spec)), flags=False, reasons=reasons
        )
    baseline, candidate = _roles(spec["configurations"])
    base, cand = _cli_spelling(baseline), _cli_spelling(candidate)
    assert base is not None and cand is not None  # noqa: S101 - _cli_flag_problems said so
    load, query = spec["load"], spec["load"].get("query") or {}
    lines = [
        f"tracetax check --api {shell_quote(_api(base_url))}",
        f"  --service {shell_quote(spec['service']['language'])} --baseline {shell_quote(base[0])} "
        f"--candidate {shell_quote(cand[0])}",
        *(f"  --candidate-env {shell_quote(f'{key}={value}')}" for key, value in cand[1].items()),
        f"  --rate {_number(load['rate'])} --duration {_number(load.get('duration_s', 20))} "
        f"--rounds {_number(spec.get('rounds', 3))} --iters {_number(query.get('iters'))} "
        f"--spans {_number(query.get('spans'))}",
    ]
    budget = _budget_flags(check.budget, pipeline=False)
    rate = (check.budget.get("cost") or {}).get("requests_per_s")
    if rate is not None and rate != _default_request_rate():
        budget.append(f"{COST_RATE_FLAG} {_number(rate)}")
    if budget:
        lines.append(f"  {' '.join(budget)}")
    history = history_flags(check)
    if history:
        lines.append(f"  {history}")
    wall_time = _max_wall_time(spec)
    last = [
        "--strict" if check.strict else "",
        "--sample-stacks" if spec.get("sample_stacks") else "",
        f"--max-wall-time {_number(wall_time)}" if wall_time is not None else "",
        f"--junit {JUNIT_FILE}",
    ]
    lines.append(f"  {' '.join(part for part in last if part)}")
    return CliCommand(command=" \\\n".join(lines), flags=True, reasons=[])


def _default_request_rate() -> float:
    from tracetax.diagnostics.cost import CostInputs

    return CostInputs().requests_per_s


# -- a Collector pipeline check ---------------------------------------------------------------------


def _variant_request(stored: dict[str, Any], name: str | None) -> dict[str, Any]:
    """A stored variant (named "baseline" or "candidate" by the check) as the request that
    makes it again: a shipped pipeline by itself, a config file with its name."""
    config_file = stored.get("config_file")
    if config_file:
        request: dict[str, Any] = {"name": name or overlay_name(config_file), "config_file": config_file}
    else:
        request = {"pipeline": stored.get("pipeline")}
        if name and name != stored.get("pipeline"):
            request["name"] = name
    if stored.get("settings"):
        request["settings"] = stored["settings"]
    return request


def pipeline_check_request(check: CheckParts, spec: dict[str, Any]) -> dict[str, Any]:
    """The request that runs this pipeline check again, from its experiment's stored spec."""
    baseline, candidate = _roles(spec["configurations"])
    baseline_name, candidate_name = request_names(spec.get("name"))
    request: dict[str, Any] = {
        "subject": "collector",
        "baseline": _variant_request(baseline, baseline_name),
        "candidate": _variant_request(candidate, candidate_name),
        "load": _without_nulls(spec["load"]),
        "budget": _without_nulls(check.budget),
        "rounds": spec.get("rounds", 5),
        "strict": check.strict,
    }
    if spec.get("seed"):
        request["seed"] = spec["seed"]
    return {**request, **_history_request(check)}


def _cli_variant(variant: Mapping[str, Any]) -> str | None:
    """What --baseline / --candidate VALUE says for a variant; None when no value says it."""
    config_file = variant.get("config_file")
    if config_file:
        if not _OVERLAY.search(config_file) or (variant.get("name") or "") != overlay_name(config_file):
            return None
        return str(config_file)
    pipeline = variant.get("pipeline")
    if not pipeline or _OVERLAY.search(pipeline) or (variant.get("name") and variant["name"] != pipeline):
        return None
    return str(pipeline)


def _pipeline_cli_problems(request: Mapping[str, Any]) -> list[str]:
    """Why `tracetax check --collector` flags cannot say this request (empty: they can)."""
    from tracetax.spec.collector import SpanLoadSpec  # the API's defaults, read where commands are built

    fixed = {key: field.default for key, field in SpanLoadSpec.model_fields.items()} | {"warmup_s": CLI_WARMUP_S}
    problems: list[str] = []
    for key, value in (request.get("load") or {}).items():
        if key in ("spans_per_s", "duration_s") or value is None or fixed.get(key) == value:
            continue
        if key == "ramp":
            problems.append("a ramp (the CLI runs none)")
        elif key == "workers":
            problems.append(f"{_number(value)} telemetrygen workers")
        elif key == "warmup_s":
            problems.append(f"a warm-up of {_number(value)} s (the CLI uses {_number(CLI_WARMUP_S)} s)")
        elif key == "drain_s":
            problems.append(f"a drain of {_number(value)} s (the CLI leaves {_number(fixed['drain_s'])} s)")
        else:
            problems.append(f"{key.replace('_', ' ')} {_number(value)}")
    if request.get("seed"):
        problems.append(f"seed {request['seed']}")
    for role in ("baseline", "candidate"):
        variant = request.get(role) or {}
        if variant.get("settings"):
            problems.append(f"the {role}'s LAB_* settings")
        if _cli_variant(variant) is None:
            problems.append(
                f"the {role}'s config file as named (the CLI names a *.yaml file after it)"
                if variant.get("config_file")
                else f"the {role}'s name of its own"
            )
    return problems


def pipeline_cli_command(base_url: str, request: dict[str, Any]) -> CliCommand:
    """The `tracetax check --collector` command of a pipeline check's request."""
    reasons = _pipeline_cli_problems(request)
    if reasons:
        return CliCommand(command=_spec_file_command(base_url, request), flags=False, reasons=reasons)
    load = request["load"]
    lines = [
        f"tracetax check --api {shell_quote(_api(base_url))}",
        f"  --collector --baseline {shell_quote(_cli_variant(request['baseline']) or '')} "
        f"--candidate {shell_quote(_cli_variant(request['candidate']) or '')}",
        f"  --spans-per-s {_number(load.get('spans_per_s'))} --duration {_number(load.get('duration_s', 20))} "
        f"--rounds {_number(request.get('rounds', 5))}",
    ]
    budget = _budget_flags(request.get("budget") or {}, pipeline=True)
    if budget:
        lines.append(f"  {' '.join(budget)}")
    history = history_flags(request)
    if history:
        lines.append(f"  {history}")
    lines.append(f"  {'--strict ' if request.get('strict') else ''}--junit {JUNIT_FILE}")
    return CliCommand(command=" \\\n".join(lines), flags=True, reasons=[])


# -- both -------------------------------------------------------------------------------------------


def curl_commands(base_url: str, request: dict[str, Any]) -> str:
    """curl commands: queue the check, read its status, fetch the JUnit XML."""
    base = _api(base_url)
    body = json.dumps(request, indent=2, ensure_ascii=False)
    checks = shell_quote(f"{base}/api/v1/checks/")
    return "\n".join(
        [
            f"CHECK_ID=$(curl -sf -XPOST {shell_quote(f'{base}/api/v1/checks')} \\",
            "  -H 'content-type: application/json' \\",
            f"  -d {shell_quote(body)} | jq -r .id)",
            f'curl -sf {checks}"$CHECK_ID"   # status; "verdict" once finished',
            f'curl -sf {checks}"$CHECK_ID?format=junit" -o {JUNIT_FILE}',
        ]
    )


def stored_check_commands(base_url: str, check: CheckParts, spec: dict[str, Any]) -> CheckCommands:
    """A stored check's request and commands, from its experiment's spec (as answers show it:
    secrets redacted) and what the check carries."""
    if spec.get("subject") == "collector":
        request = pipeline_check_request(check, spec)
        return CheckCommands(
            request=request, cli=pipeline_cli_command(base_url, request), curl=curl_commands(base_url, request)
        )
    request = check_request(check, spec)
    return CheckCommands(
        request=request, cli=service_cli_command(base_url, check, spec), curl=curl_commands(base_url, request)
    )


def request_commands(base_url: str, request: dict[str, Any]) -> CheckCommands:
    """A pipeline check request's commands, as the form that would send it shows them."""
    return CheckCommands(
        request=request, cli=pipeline_cli_command(base_url, request), curl=curl_commands(base_url, request)
    )
