# One image for every Coven process: `web`, `worker` or `sweeper` (the Procfile's process types)
# is the command, e.g. `docker run coven worker`. See docs/operations/deploy.md.
#
#   docker build -t coven .
#
# Without network inside the build (tests/test_deploy.py builds this way): put every wheel in
# deploy/wheels/ on the host (`pip wheel --wheel-dir deploy/wheels ...`) and pass
# --build-arg WHEELS_ONLY=1, with base images of your own (BUILD_IMAGE has a C compiler).

ARG BASE_IMAGE=python:3.11-slim
ARG BUILD_IMAGE=python:3.11

# --- build: the dependencies in a virtualenv, the hot path compiled with Cython --------------
FROM ${BUILD_IMAGE} AS build
ARG WHEELS_ONLY=
WORKDIR /app
COPY deploy/wheels/ /wheels/
COPY pyproject.toml setup.py ./
# pyproject.toml's dependencies are the requirements: one list, no copy of it here
RUN python3 -m venv /opt/coven \
 && python3 -c "import tomllib; print('\n'.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies']))" \
      > /tmp/requirements.txt \
 && /opt/coven/bin/pip install --no-cache-dir --disable-pip-version-check ${WHEELS_ONLY:+--no-index} \
      --find-links /wheels -r /tmp/requirements.txt "setuptools>=68"
COPY engine/ engine/
COPY ai/ ai/
# Compiled in place, as `make compiled` does (the hot path is in engine/ and ai/ only, so a
# change elsewhere does not compile again); fails the build when a module stayed uncompiled.
RUN /opt/coven/bin/python setup.py --quiet build_ext --inplace \
 && /opt/coven/bin/python -c "import importlib; from engine.compiled import HOT_MODULES, compiled_modules; \
[importlib.import_module(name) for name in HOT_MODULES]; \
assert compiled_modules() == sorted(HOT_MODULES), 'the hot path did not compile'" \
 && /opt/coven/bin/pip uninstall --yes --quiet setuptools \
 && rm -rf build \
 && find engine ai -name '*.c' -delete \
 && /opt/coven/bin/python -m compileall -q engine ai /opt/coven
COPY Procfile wsgi.py gunicorn.conf.py ./
COPY rules/ rules/
COPY api/ api/
RUN /opt/coven/bin/python -m compileall -q api wsgi.py

# --- runtime: the interpreter, the virtualenv and the code; no compiler, not root -----------
FROM ${BASE_IMAGE}
ENV PATH=/opt/coven/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PORT=8000 \
    METRICS_PORT=9100
RUN useradd --system --user-group --uid 10001 --home-dir /app --no-create-home coven
COPY --from=build /opt/coven /opt/coven
COPY --from=build /app /app
COPY deploy/entrypoint.sh /usr/local/bin/coven
WORKDIR /app
USER coven
EXPOSE 8000 9100
ENTRYPOINT ["coven"]
CMD ["web"]
