#!/bin/sh
# First start: a cluster whose superuser is POSTGRES_USER with POSTGRES_PASSWORD, and the database
# POSTGRES_DB; every start: the server in the foreground, answering on all addresses and PGPORT.
set -eu
: "${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD}"
user=${POSTGRES_USER:-postgres}
database=${POSTGRES_DB:-$user}
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  pwfile=$(mktemp)
  printf '%s' "$POSTGRES_PASSWORD" >"$pwfile"
  initdb --pgdata="$PGDATA" --username="$user" --pwfile="$pwfile" --auth-local=trust \
    --auth-host=scram-sha-256 --encoding=UTF8 >/dev/null
  rm -f "$pwfile"
  echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
  if [ "$database" != postgres ]; then
    echo "CREATE DATABASE \"$database\"" | postgres --single -D "$PGDATA" -j postgres >/dev/null
  fi
fi
# Extra arguments (the Compose command) are postgres options: `-c name=value` overrides these.
exec postgres -D "$PGDATA" -p "$PGPORT" -c listen_addresses="*" -k /var/run/postgresql "$@"
