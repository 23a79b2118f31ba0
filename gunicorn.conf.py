"""gunicorn settings of the `web` process (Procfile: `gunicorn --config gunicorn.conf.py wsgi:app`).

Read from the environment: PORT, METRICS_PORT, WEB_CONCURRENCY, WEB_CONNECTIONS,
WEB_GRACEFUL_SECONDS, GUNICORN_CONTROL_SOCKET, PROMETHEUS_MULTIPROC_DIR. Command-line flags still
override what is set here.

Cooperative workers: gunicorn's gevent worker patches the standard library (`monkey.patch_all`)
in each worker before it loads the app, so a long-poll or an event stream waiting for a match
holds a connection and a greenlet, not a thread, and /healthz answers while thousands wait.
"""

import os
import resource
import shutil
import signal
import tempfile

bind = [f"0.0.0.0:{os.environ.get('PORT', '8000')}"]
# /metrics, /healthz and /readyz on a port of their own (api/web/metrics_port.py), when one is named
if os.environ.get("METRICS_PORT", "").strip() not in ("", "0"):
    bind.append(f"0.0.0.0:{os.environ['METRICS_PORT'].strip()}")

# Each worker writes its request metrics to files there, and /metrics adds them all up (api/web/metrics.py)
_made_metrics_dir = not os.environ.get("PROMETHEUS_MULTIPROC_DIR")
if _made_metrics_dir:
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="coven-metrics-")
workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
worker_class = "gevent"
#: Connections (waiting clients included) one worker holds at most.
worker_connections = int(os.environ.get("WEB_CONNECTIONS", "10000"))
timeout = 60
#: gunicorn's default, named here because the OpenAPI document promises it: a longer request line
#: (method, path and query) gets gunicorn's 414 before the app sees it.
limit_request_line = 4094
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
    """Empty the metrics directory (an earlier run's files would count twice); let each worker
    open as many sockets as it may hold connections (the soft limit is often 1024)."""
    metrics_dir = os.environ["PROMETHEUS_MULTIPROC_DIR"]
    shutil.rmtree(metrics_dir, ignore_errors=True)
    os.makedirs(metrics_dir)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = worker_connections + 256
    if soft != resource.RLIM_INFINITY and soft < wanted:
        limit = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, limit), hard))


def on_exit(server):
    """Remove the metrics directory made above (one named by the environment is left alone)."""
    if _made_metrics_dir:
        shutil.rmtree(os.environ["PROMETHEUS_MULTIPROC_DIR"], ignore_errors=True)


#: Allocations between two youngest-generation collections of the garbage collector (Python's
#: default: 700). With 2,500 waiting requests a worker holds some 300,000 objects; a full
#: collection, which Python starts after every ~25% growth of the old generation (requests that
#: wait long enough to be promoted, then end), paused it for 0.1-0.6 s on this loaded machine.
#: Collecting less often lets most request objects die young, so full collections are rarer;
#: the loaded app's own objects are frozen out of them (`gc.freeze`).
GC_GEN0_THRESHOLD = 50_000


def post_worker_init(worker):
    """Freeze the loaded app out of the garbage collector's work and make it collect less often;
    on the worker's SIGTERM, first tell its event streams and long-polls to end, then let
    gunicorn wait for the requests in flight as usual."""
    import gc

    from api.runtime.drain import DRAIN

    gc.collect()
    gc.freeze()
    gc.set_threshold(GC_GEN0_THRESHOLD, *gc.get_threshold()[1:])

    graceful_exit = signal.getsignal(signal.SIGTERM)

    def on_sigterm(signum, frame):
        DRAIN.begin()
        graceful_exit(signum, frame)

    signal.signal(signal.SIGTERM, on_sigterm)
    signal.siginterrupt(signal.SIGTERM, False)

