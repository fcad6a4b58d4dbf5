#!/usr/bin/env bash
# Import the images the chart runs into the cluster's containerd (`make cluster-images`). No
# registry serves them here: they come from the local Docker engine (built by `docker compose
# build`, see the README), through `docker save | ctr images import`.
#
#   images.sh [HELM VALUES FILES...]   the images `helm template` renders with those values
#
# Each is imported under its full name (docker.io/...): the CRI looks images up by the
# normalised name, which is not always the name in Docker's archive. An image already in
# containerd with the same id as Docker's is skipped.
set -euo pipefail
. "$(dirname "$0")/env.sh"

[ -S "$CONTAINERD_SOCK" ] || { echo "cluster-images: the cluster is not running (make cluster-up)" >&2; exit 1; }
[ -x "$HELM" ] || { echo "cluster-images: helm is missing (make cluster-build)" >&2; exit 1; }
command -v docker >/dev/null || { echo "cluster-images: docker is needed: the images are built with Docker" >&2; exit 1; }

values=()
for file in "$@"; do values+=(-f "$file"); done
mapfile -t images < <("$HELM" template tracetax "$REPO_ROOT/helm/tracetax" "${values[@]}" |
  sed -n 's/^ *image: *"\{0,1\}\([^"]*\)"\{0,1\} *$/\1/p' | sort -u)

# full_name IMAGE: the reference as the CRI normalises it
full_name() {
  local first=${1%%/*}
  if [[ $1 != */* ]]; then echo "docker.io/library/$1"
  elif [[ $first == *.* || $first == *:* || $first == localhost ]]; then echo "$1"
  else echo "docker.io/$1"; fi
}

missing=()
for image in "${images[@]}"; do
  full="$(full_name "$image")"
  if ! id="$(docker image inspect --format '{{.Id}}' "$image" 2>/dev/null)"; then
    missing+=("$image")
    continue
  fi
  # containerd records Docker's image id as the config digest: the same id means already imported
  if ctr_k8s images ls -q | grep -x "$full" >/dev/null && ctr_k8s content ls -q | grep -x "$id" >/dev/null; then
    echo "$full: already imported"
    continue
  fi
  echo "importing $image as $full"
  docker save "$image" | ctr_k8s images import --platform linux/amd64 - >/dev/null
  ctr_k8s images ls -q | grep -x "$full" >/dev/null || ctr_k8s images tag --force "$image" "$full" >/dev/null
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "cluster-images: not in the local Docker engine: ${missing[*]}; build them first (README, \"Kubernetes (Helm)\")" >&2
  exit 1
fi
