# The worker image: every pool (control, cpu, gpu, llm) and the one-shot jobs run it, with the
# pool as the command (docker-compose.yml). Debian 13 ships Python 3.13, which bpy 5.2 needs.
# Where no registry answers, `deploy/base_image.sh` builds `debian:trixie-slim` locally
# (debootstrap + docker import) under the same tag, so this file is the same either way.
ARG BASE_IMAGE=debian:trixie-slim
FROM ${BASE_IMAGE}
LABEL org.opencontainers.image.title="arkevo-worker" \
      org.opencontainers.image.description="arkevo worker pools (control, cpu, gpu, llm) and jobs"

ENV DEBIAN_FRONTEND=noninteractive LANG=C.UTF-8
# python3.13: the workers and bpy. bubblewrap, iproute2, passwd, util-linux: the trial sandbox
# (per-slot users, namespaces; docs/sandbox.md). libfaketime: the frozen clock of reproducible
# Blender builds (docs/reproducibility.md). The X11/GL client libraries: what bpy's
# __init__.so links (ldd), plus EGL for headless GPU rendering on the gpu nodes. procps: ps/kill
# for operators.
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      python3.13 python3.13-venv ca-certificates make procps \
      bubblewrap iproute2 passwd util-linux libfaketime \
      libgl1 libegl1 libglx0 libglvnd0 libx11-6 libxext6 libxfixes3 libxi6 libxkbcommon0 \
      libxrender1 libxxf86vm1 libsm6 libice6 \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --home-dir /data --create-home arkevo

WORKDIR /app
# The locked environment first, so a code change rebuilds only the last layers.
COPY pyproject.toml uv.lock ./
COPY scripts/bootstrap.sh scripts/bootstrap.sh
# The build host's CA bundle (build secret `ca_bundle`) is trusted for the downloads, for hosts
# behind a TLS-inspecting proxy; the image keeps Debian's own bundle.
RUN --mount=type=cache,target=/root/.cache/uv --mount=type=secret,id=ca_bundle \
    if [ -s /run/secrets/ca_bundle ]; then \
        export SSL_CERT_FILE=/run/secrets/ca_bundle PIP_CERT=/run/secrets/ca_bundle; fi \
 && ARKEVO_PYTHON=/usr/bin/python3.13 UV_NO_DEV=1 UV_LINK_MODE=copy bash scripts/bootstrap.sh

COPY . .
# Bytecode for the project's own modules: sandboxed processes see /app read-only.
RUN .venv/bin/python -m compileall -q -j 0 -x '(^|/)(\.venv|seeds)(/|$)' . >/dev/null \
 && bash scripts/bootstrap.sh >/dev/null

# Sandbox slot users get uids 900000+N here (sandbox/isolation/settings.py uid_base): slot
# cleanup kills every process of a slot's uid it can see, and a host's own sandboxes use
# system uids — on one kernel the two must not meet.
ENV PATH=/app/.venv/bin:$PATH PYTHONUNBUFFERED=1 ARKEVO_VAR=/data ARKEVO_LOG_FORMAT=json \
    ARKEVO_SANDBOX_UID_BASE=900000
VOLUME /data
CMD ["python", "-m", "workers", "--help"]
