"""The HTTP edge: blueprints, request and response schemas, problem+json errors, limits, the
OpenAPI document, the explorer at /docs and the /play client."""
