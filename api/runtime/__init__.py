"""What every process shares: configuration, logs, metrics, draining, and the process supervisor
and development server."""
