# Worker image for docker-compose.yml. Same bootstrap as a developer machine.
FROM python:3.13-slim
RUN apt-get update && apt-get install -y --no-install-recommends make bubblewrap iproute2 libgl1 libxi6 libxkbcommon0 libsm6 libxrender1 libxxf86vm1 libxfixes3 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY . /app
ENV ARKEVO_PYTHON=/usr/local/bin/python3.13
RUN bash scripts/bootstrap.sh
