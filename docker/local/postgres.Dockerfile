# PostgreSQL for docker/compose.local.yaml, on a base made from Debian packages
# (docker/local-image.sh). It reads what the official image reads — POSTGRES_USER,
# POSTGRES_PASSWORD, POSTGRES_DB, data in /var/lib/postgresql/data — so compose.yaml's service
# runs unchanged.
ARG SERVICES_BASE=volley-services:local
FROM ${SERVICES_BASE}
RUN set -eu; \
    bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1); ln -s "$bin" /usr/local/pgbin; \
    mkdir -p /var/lib/postgresql/data /var/run/postgresql; \
    chown postgres:postgres /var/lib/postgresql/data /var/run/postgresql; chmod 700 /var/lib/postgresql/data
COPY postgres-entrypoint.sh /usr/local/bin/postgres-entrypoint.sh
ENV PATH=/usr/local/pgbin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    PGDATA=/var/lib/postgresql/data \
    PGPORT=5432
USER postgres
VOLUME ["/var/lib/postgresql/data"]
STOPSIGNAL SIGINT
ENTRYPOINT ["/usr/local/bin/postgres-entrypoint.sh"]
