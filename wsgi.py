"""gunicorn entry point: `gunicorn wsgi:app` (configuration from the environment)."""

from api import create_app

app = create_app()
