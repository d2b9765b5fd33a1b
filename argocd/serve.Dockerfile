# Image of `allocatable serve` (docs/serve.md), built from the wheel with the serve extra. From the root of this
# repository:
#   docker build -f argocd/serve.Dockerfile -t ghcr.io/allocatable-dev/allocatable-serve:v0.1.0 .
# `allocatable render --target monitoring` writes the Deployment that runs it: user 65532, a read-only root file
# system, /tmp as its only writable path, the policy repository checked out by a git-sync sidecar under /git.
ARG PYTHON_IMAGE=python:3.12-slim-bookworm

# The wheel, as a release builds it (python -m build).
FROM ${PYTHON_IMAGE} AS wheel
WORKDIR /src
COPY pyproject.toml README.md ./
COPY schemas/ schemas/
COPY renderer/ renderer/
RUN pip install --no-cache-dir build==1.6.1 \
    && python -m build --wheel --outdir /wheel

# serve: the wheel and prometheus-client (the serve extra) in a virtual environment, and git (the policy commit of
# a git-sync checkout is read with `git log`), nothing else.
# PYTHONMALLOC=malloc: every object from the C library's malloc (which serve trims after each cycle) instead of
# Python's arenas, which scrapes answered while a cycle runs kept from being returned: 20,000 nodes, resident set
# after each cycle 100 -> 157 MiB over five cycles with pymalloc, 56-57 MiB without (docs/performance.md, "serve").
FROM ${PYTHON_IMAGE}
ENV VIRTUAL_ENV=/opt/allocatable \
    PATH=/opt/allocatable/bin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PYTHONMALLOC=malloc \
    ALLOCATABLE_CACHE_DIR=/opt/allocatable/cache
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends git \
    && rm -rf /var/lib/apt/lists/*
COPY --from=wheel /wheel/ /tmp/wheel/
RUN python -m venv /opt/allocatable \
    && wheel="$(ls /tmp/wheel/allocatable-*.whl)" \
    && /opt/allocatable/bin/pip install --no-cache-dir "${wheel}[serve]" \
    && rm -rf /tmp/wheel \
    && install -d -o 65532 -g 65532 -m 0700 /opt/allocatable/cache
# The validators cache (renderer/models/validators.py), written now by the user serve runs as: the root file system
# is read-only at run time. The build fails if it cannot be written.
USER 65532:65532
RUN python -m renderer.models.validators
WORKDIR /tmp
EXPOSE 8080
ENTRYPOINT ["allocatable"]
CMD ["serve", "--help"]
