#!/bin/sh
# Back up the Redis of a compose deployment, live, to FILE: an RDB snapshot (redis-cli --rdb).
#   deploy/redis-backup.sh FILE
# COMPOSE names the compose command (default: docker compose); COMPOSE_FILE and
# COMPOSE_PROJECT_NAME select the deployment, as compose itself reads them.
set -eu
out=${1:?usage: redis-backup.sh FILE}
compose=${COMPOSE:-docker compose}
$compose exec -T redis sh -c \
    'redis-cli --rdb /data/backup.rdb >/dev/null && cat /data/backup.rdb && rm /data/backup.rdb' > "$out.partial"
mv "$out.partial" "$out"
echo "redis-backup: $(wc -c < "$out") bytes in $out"
