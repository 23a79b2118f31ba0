#!/bin/sh
# The image's entry point: `web`, `worker` or `sweeper` runs that line of the Procfile (the one
# list of process types); any other command runs as given (`docker run coven python -m ...`).
set -eu
if [ "$#" -eq 1 ] && line=$(grep "^$1: " /app/Procfile); then
    exec /bin/sh -c "exec ${line#*: }"
fi
exec "$@"
