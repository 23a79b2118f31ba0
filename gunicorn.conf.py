"""gunicorn settings of the `web` process (Procfile: `gunicorn --config gunicorn.conf.py wsgi:app`).

Read from the environment: PORT, WEB_CONCURRENCY, WEB_CONNECTIONS, WEB_GRACEFUL_SECONDS,
GUNICORN_CONTROL_SOCKET. Command-line flags still override what is set here.

Cooperative workers: gunicorn's gevent worker patches the standard library (`monkey.patch_all`)
in each worker before it loads the app, so a long-poll or an event stream waiting for a match
holds a connection and a greenlet, not a thread, and /healthz answers while thousands wait.
"""

import os
import resource
import signal

bind = f"0.0.0.0:{os.environ.get('PORT', '8000')}"
workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
worker_class = "gevent"
#: Connections (waiting clients included) one worker holds at most.
worker_connections = int(os.environ.get("WEB_CONNECTIONS", "10000"))
timeout = 60
keepalive = 5
backlog = 4096
# Event streams and long-polls end at once on SIGTERM (see post_worker_init), so a worker
# stops within a request's time; this only bounds a request that is slow for other reasons.
graceful_timeout = int(os.environ.get("WEB_GRACEFUL_SECONDS", "10"))

# gunicorn >= 25.1 opens a control socket at one path per user ($XDG_RUNTIME_DIR/gunicorn.ctl):
# every instance on a host would share it. None, unless a path of this instance's own is named.
control_socket_disable = not os.environ.get("GUNICORN_CONTROL_SOCKET")
if not control_socket_disable:
    control_socket = os.environ["GUNICORN_CONTROL_SOCKET"]


def on_starting(server):
    """Let each worker open as many sockets as it may hold connections (the soft limit is often 1024)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = worker_connections + 256
    if soft != resource.RLIM_INFINITY and soft < wanted:
        limit = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, limit), hard))


def post_worker_init(worker):
    """On the worker's SIGTERM, first tell its event streams and long-polls to end, then let
    gunicorn wait for the requests in flight as usual."""
    from api.drain import DRAIN

    graceful_exit = signal.getsignal(signal.SIGTERM)

    def on_sigterm(signum, frame):
        DRAIN.begin()
        graceful_exit(signum, frame)

    signal.signal(signal.SIGTERM, on_sigterm)
    signal.siginterrupt(signal.SIGTERM, False)
