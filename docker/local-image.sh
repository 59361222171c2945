#!/usr/bin/env bash
# Builds the Volley image where no image registry answers and package registries answer the host
# but not a container build (docker/README.md, "Without a registry"):
#   1. a Node 20 base image made from Debian packages (mmdebstrap, then docker import), once per tag;
#   2. the workspace built on this host, copied with production dependencies only;
#   3. docker/Dockerfile on that base with VOLLEY_BUILD=prebuilt, tagged as compose.yaml expects;
#   4. with --services, Redis and PostgreSQL images for docker/compose.local.yaml, made the same way
#      (docker/local/*.Dockerfile on one Debian base with both servers).
# Needs a Docker daemon (DOCKER_HOST), mmdebstrap, pnpm, and `pnpm build` done.
#
#   docker/local-image.sh [--services] [--base-only] [--rebuild-base]
#   VOLLEY_IMAGE (volley:latest)  VOLLEY_BASE_IMAGE (volley-base:node20-trixie)
#   VOLLEY_BASE_SUITE (trixie: Debian 13 ships Node 20)  VOLLEY_BASE_MIRROR (Debian's default)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
image=${VOLLEY_IMAGE:-volley:latest}
base=${VOLLEY_BASE_IMAGE:-volley-base:node20-trixie}
suite=${VOLLEY_BASE_SUITE:-trixie}
services_base=${VOLLEY_SERVICES_BASE_IMAGE:-volley-services:local}
base_only=0
rebuild_base=0
services=0
for arg in "$@"; do
  case "$arg" in
    --base-only) base_only=1 ;;
    --rebuild-base) rebuild_base=1 ;;
    --services) services=1 ;;
    *) echo "local-image.sh: unknown option '$arg' (--services, --base-only, --rebuild-base)" >&2; exit 2 ;;
  esac
done
log() { printf 'local-image: %s\n' "$*" >&2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/volley-image.XXXXXX")
trap 'rm -rf "$work"' EXIT

# A root filesystem of Debian packages, imported as an image once per tag (--rebuild-base: again).
debian_image() {
  local tag=$1 packages=$2
  if [ "$rebuild_base" = 0 ] && docker image inspect "$tag" >/dev/null 2>&1; then return; fi
  log "making $tag from Debian $suite ($packages)"
  # minbase: essential packages and what the list needs; no documentation.
  mmdebstrap --quiet --variant=minbase --include="$packages" \
    --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
    "$suite" "$work/rootfs.tar" ${VOLLEY_BASE_MIRROR:+"$VOLLEY_BASE_MIRROR"}
  docker import --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    "$work/rootfs.tar" "$tag" >/dev/null
  rm -f "$work/rootfs.tar"
}

# docker build, its output kept for when it fails; the legacy builder and BuildKit both read these
# Dockerfiles. The build stage's intermediate image is labelled so it can be pruned.
build_image() {
  local tag=$1 previous
  shift
  previous=$(docker image inspect -f '{{.Id}}' "$tag" 2>/dev/null || true)
  docker build --network host -t "$tag" "$@" >"$work/build.log" 2>&1 || {
    cat "$work/build.log" >&2
    exit 1
  }
  # The image this one replaces would stay as an untagged copy; gone unless a container uses it.
  if [ -n "$previous" ] && [ "$previous" != "$(docker image inspect -f '{{.Id}}' "$tag")" ]; then
    docker image rm "$previous" >/dev/null 2>&1 || true
  fi
  log "built $tag ($(docker image inspect -f '{{.Size}}' "$tag" | awk '{ printf "%d MB", $1 / 1e6 }'))"
}

debian_image "$base" ca-certificates,nodejs,passwd
[ "$services" = 1 ] && debian_image "$services_base" ca-certificates,redis-server,postgresql
node_version=$(docker run --rm --network none "$base" node --version)
case "$node_version" in
  v20.*) log "base $base has Node $node_version" ;;
  *) log "base $base has Node $node_version; the workspace is built for Node 20 (better-sqlite3's ABI)"; exit 1 ;;
esac
[ "$base_only" = 1 ] && exit 0

cd "$root"
for built in apps/cli/dist/bin.js apps/web/dist/index.html packages/db/dist/index.js; do
  [ -f "$built" ] || { log "$built is missing: run pnpm build first"; exit 1; }
done

log "assembling the build context from $root"
context="$work/context"
mkdir -p "$context"
# The tree as the Dockerfile's install mode would have it after `pnpm build`: no dependencies yet,
# no secrets, no local data or results.
tar -cf - --exclude=node_modules --exclude=.git --exclude=.env --exclude='*.tsbuildinfo' --exclude=./.dockerignore \
  --exclude=./data --exclude=./test-results --exclude=./coverage --exclude=./bench/results . |
  tar -xf - -C "$context"
# Production dependencies of the `volley` command only, from the host's store (no download).
(cd "$context" && CI=true pnpm install --prod --frozen-lockfile --offline --filter "@volley/cli..." >/dev/null)

log "building $image"
build_image "$image" -f "$root/docker/Dockerfile" \
  --build-arg BASE_IMAGE="$base" --build-arg VOLLEY_BUILD=prebuilt "$context"
docker image prune --force --filter label=volley.stage=build >/dev/null

if [ "$services" = 1 ]; then
  for service in redis postgres; do
    build_image "volley-$service:local" -f "$root/docker/local/$service.Dockerfile" \
      --build-arg SERVICES_BASE="$services_base" "$root/docker/local"
  done
fi
