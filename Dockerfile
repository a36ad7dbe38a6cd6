# The pbm image: the `pbm` command (workers, CLI, `pbm serve`) over a Redis named by REDIS_URL.
# It runs as an unprivileged user (uid 10001, no login shell, no password): a fault in pbm or in a
# library it parses player input with gets that user's rights in the container, not root's. The
# code is root's and read-only to it; it may write only its home (PBM_HOME: the seat links' key
# file when PBM_SECRET_KEY is not set, the embedded Redis when REDIS_URL is not set).
FROM python:3.12-slim
WORKDIR /app
COPY pyproject.toml README.md ./
COPY core core
COPY events events
COPY workers workers
COPY replays replays
COPY pbm pbm
RUN pip install --no-cache-dir . \
 && groupadd --gid 10001 pbm \
 && useradd --uid 10001 --gid pbm --no-log-init --create-home --home-dir /home/pbm --shell /usr/sbin/nologin pbm
ENV PBM_HOME=/home/pbm/data
# Numeric, so a runtime that refuses root (Kubernetes' runAsNonRoot) can tell without /etc/passwd.
USER 10001:10001
CMD ["pbm", "worker"]
