#!/bin/sh
# As in the official image: protected mode off, since the container's network is the boundary and
# the master and workers connect from other containers or the host.
set -eu
if [ "${1:-}" = redis-server ]; then
  shift
  exec redis-server "$@" --protected-mode no
fi
exec "$@"
