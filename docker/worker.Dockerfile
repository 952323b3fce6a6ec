# The graphmem worker (embeddings, summaries, roll-ups) for docker/compose.yml.
# Build context: the repository root (compose.yml sets it); worker.Dockerfile.dockerignore keeps it small.
FROM python:3.11-slim-bookworm
WORKDIR /src
COPY pyproject.toml README.md ./
COPY graphmem ./graphmem
COPY cypher ./cypher
RUN pip install --no-cache-dir . && rm -rf /src && mkdir -p /var/lib/graphmem && chown nobody /var/lib/graphmem
WORKDIR /var/lib/graphmem
USER nobody
ENV GRAPHMEM_HOME=/var/lib/graphmem
CMD ["graphmem", "worker", "run"]
