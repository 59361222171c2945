#!/usr/bin/env bash
# Starts or stops a Docker daemon of its own, for machines without systemd where the network may not
# be changed (no iptables, no default bridge): its sockets and data under one directory, containers
# on user-defined bridges (Compose's project networks) or the host's network.
#
#   eval "$(docker/local-daemon.sh start)"   # prints export DOCKER_HOST=...
#   docker/local-daemon.sh stop
#   VOLLEY_DOCKER_DIR (/var/tmp/volley-docker): sockets, data, log
set -euo pipefail
dir=${VOLLEY_DOCKER_DIR:-/var/tmp/volley-docker}
sock="unix://$dir/docker.sock"
pidfile="$dir/dockerd.pid"

running() { [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; }

case "${1:-}" in
  start)
    mkdir -p "$dir/data" "$dir/exec"
    if ! running; then
      command -v dockerd >/dev/null || { echo "local-daemon.sh: no dockerd (apt-get install docker.io)" >&2; exit 1; }
      # setsid: the daemon outlives the shell that started it, and a Ctrl-C there.
      setsid dockerd --iptables=false --ip6tables=false --ip-masq=false --bridge=none \
        --data-root "$dir/data" --exec-root "$dir/exec" --pidfile "$pidfile" -H "$sock" \
        >"$dir/dockerd.log" 2>&1 </dev/null &
      for _ in $(seq 100); do
        DOCKER_HOST=$sock docker version >/dev/null 2>&1 && break
        sleep 0.2
      done
    fi
    DOCKER_HOST=$sock docker version --format 'local-daemon.sh: Docker {{.Server.Version}}' >&2 || {
      echo "local-daemon.sh: the daemon did not start; see $dir/dockerd.log:" >&2
      tail -5 "$dir/dockerd.log" >&2
      exit 1
    }
    echo "export DOCKER_HOST=$sock"
    ;;
  stop)
    if running; then
      pid=$(cat "$pidfile")
      kill "$pid"
      for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    fi
    ;;
  *)
    echo "usage: local-daemon.sh start|stop" >&2
    exit 2
    ;;
esac
