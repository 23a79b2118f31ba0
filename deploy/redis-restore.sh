#!/bin/sh
# Restore the Redis of a compose deployment from FILE (made by redis-backup.sh): the matches go
# back to the versions they had then. The processes are stopped meanwhile, then started again.
#   deploy/redis-restore.sh FILE
# COMPOSE, COMPOSE_FILE and COMPOSE_PROJECT_NAME as for redis-backup.sh.
set -eu
in=${1:?usage: redis-restore.sh FILE}
compose=${COMPOSE:-docker compose}
$compose stop web worker sweeper  # nothing writes while Redis is replaced
$compose stop redis
# Redis reads an RDB file only when it has no append-only file: load the backup with AOF off,
# turn AOF on (Redis writes the data set into a new append-only file), and shut down.
$compose run --rm -T --no-deps --entrypoint sh redis -c '
    set -e
    rm -rf /data/appendonlydir /data/appendonly.aof /data/dump.rdb
    cat > /data/dump.rdb
    redis-server --appendonly no --dir /data --port 6379 --daemonize yes
    until redis-cli ping >/dev/null 2>&1; do sleep 0.1; done
    redis-cli config set appendonly yes >/dev/null
    until redis-cli info persistence | grep -q "^aof_rewrite_in_progress:0" \
        && redis-cli info persistence | grep -q "^aof_rewrite_scheduled:0" \
        && ls /data/appendonlydir/*.manifest >/dev/null 2>&1; do sleep 0.1; done
    echo "redis-restore: $(redis-cli dbsize) keys"
    redis-cli shutdown' < "$in"
$compose up --detach --no-build
