# Sourced by scripts/check-packaging.sh and stack/kubernetes/build.sh (not run).

# go_tool NAME VERSION MODULE PACKAGE OUTPUT LDFLAGS: build PACKAGE of MODULE@VERSION into
# OUTPUT (a path under $TOOLS) unless it is already there. `go install` refuses modules whose
# go.mod has replace or exclude directives (compose has), so every tool is built the same way:
# from a writable copy of the published module, with its own go.mod and go.sum in force.
go_tool() {
  local name=$1 version=$2 module=$3 package=$4 output=$5 ldflags=$6
  [ -x "$output" ] && return 0
  command -v go >/dev/null || { echo "Go is needed to install $name" >&2; return 1; }
  echo "installing $name $version from the Go module proxy (first run only)"
  local work dir
  work="$(mktemp -d "${TMPDIR:-/tmp}/tracetax-$name.XXXXXX")"
  dir="$(GOFLAGS=-mod=mod go mod download -json "$module@$version" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d.get("Dir") or sys.exit(d.get("Error", "no Dir")))')" || {
    rm -rf "$work"
    return 1
  }
  cp -r "$dir" "$work/src" && chmod -R u+w "$work/src"
  if ! (cd "$work/src" && GOFLAGS=-mod=mod GOTOOLCHAIN=local CGO_ENABLED=0 \
    nice -n 10 go build -trimpath -ldflags "-s -w $ldflags" -o "$work/$name" "$package"); then
    rm -rf "$work"
    return 1
  fi
  mkdir -p "$(dirname "$output")"
  mv "$work/$name" "$output.tmp" && mv -f "$output.tmp" "$output"
  rm -rf "$work"
}
