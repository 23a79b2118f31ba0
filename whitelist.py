"""Names vulture (`make lint`) reports as unused that are used where it cannot see.

Only true false positives belong here: code used by a library through its name
or by a protocol. Dead code is deleted, not listed.
"""

from vulture.whitelist_utils import Whitelist

_ = Whitelist()

# Flask: the JSON provider reads this setting
_.sort_keys
# signal handlers receive (signum, frame)
_.signum
_.frame
# marshmallow: response fields are read by the library, by attribute name
_.bot_levels
_.you
_.instance
_.current_version
_.status_of_match
_.expires_in
# tests/conftest.py: the fake pub/sub implements the interface the service calls
_.unsubscribe

# marshmallow: a field's `required` flag, read by the library and the OpenAPI plugin
_.required
# OpenSpiel calls these on the evaluator it is given (ai/openspiel.py)
_.evaluate
_.prior
# RQ runs jobs by dotted path ("api.jobs.analysis.run_analysis")
_.run_analysis
# marshmallow response field
_.win_chance
# gunicorn.conf.py's SIGTERM hook (post_worker_init) begins the drain
_.begin
# gunicorn serves the bench's bare endpoint by name ("bench.http:bare_app()")
_.bare_app
# RQ calls a worker's subscribe(); the tests' burst worker overrides it
_.subscribe
# PyYAML asks the dumper whether to write anchors (api/openapi.py)
_.ignore_aliases
# marshmallow: the clock's fields (read by name) and its @validates_schema hook
_.move_seconds
_.bank_seconds
_.increment_seconds
_.one_kind
# Visibility("private") comes from the request body, by value
_.PRIVATE
# prometheus-client calls a collector's collect() at scrape time (api/runtime/metrics.py)
_.collect
# set in a before_request hook, read back with g.get() in the after_request hook
_.access_started
_.metrics_started
# redis-py's command methods call it (api/store/storage.py WriteRecorder records them)
_.execute_command
# marshmallow reads a schema's fields from its class attributes (tests/test_loading.py)
_.anything
_.renamed
# settings read by name: Flask's config (MAX_CONTENT_LENGTH) and the rate limits' `current_app.config[...]`
_.MAX_CONTENT_LENGTH
_.RATE_LIMIT_CREATE
_.RATE_LIMIT_JOIN
_.RATE_LIMIT_MOVE
_.RATE_LIMIT_TICKET
_.RATE_LIMIT_ANALYSIS
_.RATE_LIMIT_READ
# a pytest fixture named in @pytest.mark.usefixtures (tests/test_guide.py)
_.built_site
# pytest reads a module's marks by this name (tests/test_deploy.py)
_.pytestmark
