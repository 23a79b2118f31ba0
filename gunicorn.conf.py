"""gunicorn settings of the `web` process (Procfile: `gunicorn --config gunicorn.conf.py wsgi:app`).

Read from the environment: PORT, WEB_CONCURRENCY, WEB_CONNECTIONS. Command-line flags still
override what is set here.

Cooperative workers: gunicorn's gevent worker patches the standard library (`monkey.patch_all`)
in each worker before it loads the app, so a long-poll or an event stream waiting for a match
holds a connection and a greenlet, not a thread, and /healthz answers while thousands wait.
"""

import os
import resource

bind = f"0.0.0.0:{os.environ.get('PORT', '8000')}"
workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
worker_class = "gevent"
#: Connections (waiting clients included) one worker holds at most.
worker_connections = int(os.environ.get("WEB_CONNECTIONS", "10000"))
timeout = 60
keepalive = 5
backlog = 4096


def on_starting(server):
    """Let each worker open as many sockets as it may hold connections (the soft limit is often 1024)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = worker_connections + 256
    if soft != resource.RLIM_INFINITY and soft < wanted:
        limit = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, limit), hard))
