# Redis for docker/compose.local.yaml, on a base made from Debian packages (docker/local-image.sh):
# used as compose.yaml uses the official image — `redis-server ...` as the command, data in /data,
# protected mode off — and run as the unprivileged redis user.
ARG SERVICES_BASE=volley-services:local
FROM ${SERVICES_BASE}
RUN mkdir -p /data && chown redis:redis /data
COPY redis-entrypoint.sh /usr/local/bin/redis-entrypoint.sh
WORKDIR /data
USER redis
VOLUME ["/data"]
ENTRYPOINT ["/usr/local/bin/redis-entrypoint.sh"]
CMD ["redis-server"]
