#!/usr/bin/env bash
# The images compose.yml runs, built on this machine with no registry (`make images`).
#
#   scripts/images.sh build [NAME...]  build every image images/local.env names (or only NAME:
#                                      base busybox tempo loki mimir collector backend)
#   scripts/images.sh check            exit 1, naming each missing image and the command that
#                                      builds it, unless every image compose needs is present
#   scripts/images.sh sizes            each image's size
#
# Nothing is compiled here. The base is Debian (the host's release) from mmdebstrap, piped into
# `docker import`; every other image is a small Dockerfile in images/<name>/ built on that base
# from a staged build context under $CACHE/images/<name>/, holding binaries the Makefile already
# built: the stack's from `make stack-build` ($CACHE/bin), oha from `make tools`, the demo
# services from `make services`, the UI from `make frontend`. The Python environments are made
# by uv from its cache, relocatable, for the image's interpreter (Debian's python3.11).
# Build times and sizes go to $CACHE/images/build-log.tsv.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${TRACETAX_CACHE_DIR:-$HOME/.cache/tracetax}"
STAGES="$CACHE/images"
UV="${UV:-$CACHE/tools/uv-0.13.9/bin/uv}"
# The interpreter the images' Python environments are made for: Debian's, at the same path in
# the image (images/backend/Dockerfile installs Debian's python3).
IMAGE_PYTHON=/usr/bin/python3.11
ALL=(base busybox tempo loki mimir collector backend)

# Image names: .env's, overridden by images/local.env (the same two files compose reads).
set -a
# shellcheck source=/dev/null
. "$ROOT/.env"
# shellcheck source=/dev/null
. "$ROOT/images/local.env"
set +a
BACKEND_IMAGE="tracetax/backend:${BACKEND_IMAGE_TAG}"

image_of() {
  case "$1" in
    base) echo "$BASE_IMAGE" ;;
    busybox) echo "$BUSYBOX_IMAGE" ;;
    tempo) echo "$TEMPO_IMAGE" ;;
    loki) echo "$LOKI_IMAGE" ;;
    mimir) echo "$MIMIR_IMAGE" ;;
    collector) echo "$COLLECTOR_IMAGE" ;;
    backend) echo "$BACKEND_IMAGE" ;;
    *) echo "images: unknown image $1 (one of: ${ALL[*]})" >&2; return 1 ;;
  esac
}

die() { echo "images: $*" >&2; exit 1; }
present() { docker image inspect "$1" >/dev/null 2>&1; }

# The native stack's binaries, by the names the backend gives them (one source: components.py).
stack_binary() {
  (cd "$ROOT/backend" && UV_PROJECT_ENVIRONMENT="$ROOT/backend/.venv" "$UV" run --frozen --quiet python -c "
import sys
from tracetax.native_stack import components as c
build = {'tempo': c.TEMPO_BUILD, 'loki': c.LOKI_BUILD, 'mimir': c.MIMIR_BUILD,
         'collector': c.COLLECTOR_BUILD, 'telemetrygen': c.TELEMETRYGEN_BUILD}[sys.argv[1]]
print(c.binary_path(build))" "$1")
}

need() { # need PATH WHAT-BUILDS-IT
  [ -e "$1" ] || die "$1 is missing: run \`$2\` first"
}

build_base() {
  command -v mmdebstrap >/dev/null || die "mmdebstrap is missing: apt-get install mmdebstrap (make images installs it as root)"
  local release dir="$STAGES/base"
  release="$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")"
  rm -rf "$dir" && mkdir -p "$dir"
  # minbase: dpkg, apt and the essential set; no documentation, apt lists or package caches (the
  # Dockerfiles run apt-get update themselves). The apt configuration Docker's own Debian images
  # carry (docker-clean) keeps .debs and caches out of every later layer too. A file first, so a
  # failed mmdebstrap leaves no empty image behind.
  mmdebstrap --variant=minbase --quiet \
    --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
    --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
    --customize-hook='printf "%s\n" "APT::Keep-Downloaded-Packages \"false\";" "Dir::Cache::pkgcache \"\";" "Dir::Cache::srcpkgcache \"\";" "Acquire::Languages \"none\";" >"$1/etc/apt/apt.conf.d/docker-clean"' \
    --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*.bin' \
    "$release" "$dir/rootfs.tar"
  docker import --change 'CMD ["/bin/bash"]' "$dir/rootfs.tar" "$BASE_IMAGE" >/dev/null
  rm -rf "$dir"
}

# stage_binary NAME SOURCE: a build context holding one file, called NAME.
stage_binary() {
  local dir="$STAGES/$1"
  rm -rf "$dir" && mkdir -p "$dir"
  cp "$2" "$dir/$1"
}

# A relocatable environment for the image's interpreter, from uv's cache (nothing downloaded
# when `make backend-deps`/`make services` ran): venv_for PROJECT-DIR TARGET-VENV
venv_for() {
  "$UV" venv --quiet --relocatable --python "$IMAGE_PYTHON" "$2"
  (cd "$1" && UV_PROJECT_ENVIRONMENT="$2" UV_PYTHON="$IMAGE_PYTHON" UV_PYTHON_DOWNLOADS=never \
    UV_COMPILE_BYTECODE=1 UV_LINK_MODE=copy "$UV" sync --quiet --frozen --no-dev)
}

stage_backend() {
  local dir="$STAGES/backend" app services
  local oha="$CACHE/tools/oha-${OHA_VERSION}/bin/oha"
  local collector telemetrygen node
  collector="$(stack_binary collector)"
  telemetrygen="$(stack_binary telemetrygen)"
  node="$(command -v node || true)"
  need "$ROOT/frontend/dist/index.html" "make frontend"
  need "$ROOT/instrumented-services/go/bin/demo-go" "make services"
  need "$ROOT/instrumented-services/java/target/tracetax-demo-java.jar" "make services"
  need "$ROOT/instrumented-services/node/node_modules/.package-lock.json" "make services"
  need "$oha" "make tools"
  need "$collector" "make stack-build"
  need "$telemetrygen" "make stack-build"
  [ -n "$node" ] || die "node is missing (the Node service's runtime): install Node.js 20"
  [ -x "$IMAGE_PYTHON" ] || die "$IMAGE_PYTHON is missing: the images' Python environments are made for Debian's python3.11 (apt-get install python3)"

  rm -rf "$dir" && mkdir -p "$dir"
  app="$dir/app"
  services="$app/instrumented-services"
  mkdir -p "$app/backend" "$app/frontend" "$app/collector-pipelines" \
    "$services/go" "$services/java/target" "$services/node" "$services/python" \
    "$dir/opt/tracetax/cache/bin" "$dir/opt/tracetax/cache/tools/oha-${OHA_VERSION}/bin"
  cp "$node" "$dir/node"
  cp "$oha" "$dir/opt/tracetax/cache/tools/oha-${OHA_VERSION}/bin/oha"
  cp "$collector" "$telemetrygen" "$dir/opt/tracetax/cache/bin/"

  # The backend: its source, and its locked environment with tracetax installed editable.
  cp -r "$ROOT/backend/tracetax" "$ROOT/backend/pyproject.toml" "$ROOT/backend/uv.lock" "$ROOT/backend/README.md" "$app/backend/"
  venv_for "$app/backend" "$app/backend/.venv"
  # The editable install points at the staged copy; in the image the project is /app/backend
  # (tracetax's REPO_ROOT is then /app, where the UI and the services are).
  local pth
  pth="$(find "$app/backend/.venv" -name '_editable_impl_tracetax.pth')"
  [ -n "$pth" ] || die "no editable install of tracetax in the staged environment"
  echo /app/backend >"$pth"
  cp -r "$ROOT/frontend/dist" "$app/frontend/dist"
  cp -r "$ROOT/collector-pipelines/lab" "$app/collector-pipelines/lab"

  # The demo services, as each one's service.json runs it from its folder.
  cp -r "$ROOT/instrumented-services/go/bin" "$ROOT/instrumented-services/go/service.json" "$services/go/"
  local java="$ROOT/instrumented-services/java"
  cp -r "$java/target/tracetax-demo-java.jar" "$java/target/tracetax-demo-java-agent-ext.jar" \
    "$java/target/lib" "$java/target/agent" "$services/java/target/"
  cp "$java/service.json" "$services/java/"
  local nodesvc="$ROOT/instrumented-services/node"
  cp -r "$nodesvc"/*.js "$nodesvc/package.json" "$nodesvc/package-lock.json" "$nodesvc/service.json" \
    "$nodesvc/tools" "$nodesvc/node_modules" "$services/node/"
  # Its dev dependencies stay out of the image (npm ci installed them for the build).
  (cd "$services/node" && npm prune --omit=dev --no-audit --no-fund --loglevel=error >/dev/null)
  local pysvc="$ROOT/instrumented-services/python"
  cp "$pysvc"/*.py "$pysvc/pyproject.toml" "$pysvc/uv.lock" "$pysvc/service.json" "$services/python/"
  venv_for "$services/python" "$services/python/.venv"
  # The zero-code sets' pins: without an install in the image, those configurations are then
  # reported "not installed" by name rather than as an unreadable versions.json.
  cp -r "$ROOT/instrumented-services/zero-code" "$services/zero-code"
  find "$dir" -name __pycache__ -path '*/tracetax/*' -prune -exec rm -rf {} +
}

stage() {
  case "$1" in
    busybox) rm -rf "$STAGES/busybox" && mkdir -p "$STAGES/busybox" ;;
    tempo | loki | mimir | collector)
      local binary
      binary="$(stack_binary "$1")"
      need "$binary" "make stack-build"
      stage_binary "$1" "$binary"
      ;;
    backend) stage_backend ;;
  esac
}

build_one() {
  local name=$1 image started
  image="$(image_of "$name")"
  started=$SECONDS
  echo "images: $name -> $image"
  if [ "$name" = base ]; then
    build_base
  else
    present "$BASE_IMAGE" || die "$BASE_IMAGE is missing: run \`scripts/images.sh build base\` first"
    stage "$name"
    # The classic builder: BuildKit would fetch its Dockerfile frontend from a registry.
    DOCKER_BUILDKIT=0 docker build --quiet --build-arg "BASE_IMAGE=$BASE_IMAGE" \
      -f "$ROOT/images/$name/Dockerfile" -t "$image" "$STAGES/$name" >/dev/null
  fi
  local seconds=$((SECONDS - started)) size
  size="$(docker image inspect --format '{{.Size}}' "$image")"
  printf '%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$name" "$image" "$seconds" "$size" >>"$STAGES/build-log.tsv"
  printf 'images: %s built in %d s, %d MB\n' "$image" "$seconds" "$((size / 1000000))"
}

cmd_build() {
  mkdir -p "$STAGES"
  local names=("$@")
  [ ${#names[@]} -gt 0 ] || names=("${ALL[@]}")
  for name in "${names[@]}"; do
    image_of "$name" >/dev/null
    # The base is made once: rebuild it by name (`scripts/images.sh build base`).
    if [ "$name" = base ] && [ $# -eq 0 ] && present "$BASE_IMAGE"; then
      echo "images: $BASE_IMAGE present"
      continue
    fi
    build_one "$name"
  done
}

cmd_check() {
  local missing=0 name image
  for name in "${ALL[@]}"; do
    image="$(image_of "$name")"
    if ! present "$image"; then
      echo "images: $image is missing: build it with \`make images\` (or \`scripts/images.sh build $name\`)" >&2
      missing=1
    fi
  done
  return $missing
}

cmd_sizes() {
  local name
  for name in "${ALL[@]}"; do
    docker image inspect --format "{{index .RepoTags 0}} {{.Size}}" "$(image_of "$name")" 2>/dev/null |
      awk '{printf "%-45s %5.0f MB\n", $1, $2 / 1e6}' || echo "$(image_of "$name") missing"
  done
}

case "${1:-}" in
  build) shift; cmd_build "$@" ;;
  check) cmd_check ;;
  sizes) cmd_sizes ;;
  *) echo "usage: $0 build [NAME...] | check | sizes" >&2; exit 2 ;;
esac
