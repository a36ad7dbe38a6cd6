# The pbm image: the `pbm` command (workers, CLI) over a Redis named by REDIS_URL.
FROM python:3.12-slim
WORKDIR /app
COPY pyproject.toml README.md ./
COPY core core
COPY events events
COPY workers workers
COPY replays replays
COPY pbm pbm
RUN pip install --no-cache-dir .
CMD ["pbm", "worker"]
