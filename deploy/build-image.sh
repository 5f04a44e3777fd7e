#!/usr/bin/env bash
# Builds the coderun container image with podman (or docker): a static
# binary, the CA bundle and the engine's compilation cache, warmed by one
# run, in a fresh build context, then deploy/Containerfile on it.
#
#   deploy/build-image.sh [TAG]     TAG defaults to localhost/coderun:dev
set -euo pipefail
cd "$(dirname "$0")/.."
tag=${1:-localhost/coderun:dev}
builder=$(command -v podman || command -v docker || true)
if [ -z "$builder" ]; then
  echo "build-image.sh: needs podman or docker on PATH" >&2; exit 2
fi
ctx=$(mktemp -d)
trap 'rm -rf "$ctx"' EXIT
CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o "$ctx/coderun" ./cmd/coderun
# One run compiles the engine into the cache the image ships.
"$ctx/coderun" run --cache-dir "$ctx/cache" examples/hello.ts >/dev/null
cp /etc/ssl/certs/ca-certificates.crt "$ctx/"
"$builder" build -f deploy/Containerfile -t "$tag" "$ctx"
