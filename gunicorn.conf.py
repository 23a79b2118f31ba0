"""gunicorn settings of the `web` process (Procfile: `gunicorn --config gunicorn.conf.py wsgi:app`).

Read from the environment: PORT, WEB_CONCURRENCY, WEB_THREADS, WEB_GRACEFUL_SECONDS,
GUNICORN_CONTROL_SOCKET. Command-line flags still override what is set here.
"""

import os
import signal

bind = f"0.0.0.0:{os.environ.get('PORT', '8000')}"
workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
worker_class = "gthread"
threads = int(os.environ.get("WEB_THREADS", "32"))  # each long-poll or event stream holds one
timeout = 60
# Event streams and long-polls end at once on SIGTERM (see post_worker_init), so a worker
# stops within a request's time; this only bounds a request that is slow for other reasons.
graceful_timeout = int(os.environ.get("WEB_GRACEFUL_SECONDS", "10"))

# gunicorn >= 25.1 opens a control socket at one path per user ($XDG_RUNTIME_DIR/gunicorn.ctl):
# every instance on a host would share it. None, unless a path of this instance's own is named.
control_socket_disable = not os.environ.get("GUNICORN_CONTROL_SOCKET")
if not control_socket_disable:
    control_socket = os.environ["GUNICORN_CONTROL_SOCKET"]


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
