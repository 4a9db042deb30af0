# csbot: one process per container. With no arguments it runs the embedded default
# (`csbot chat`, SQLite in /data, the demo shop: `docker run -it csbot`). In production
# compose.yaml runs `csbot run --webhook` against PostgreSQL and Redis.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /src
COPY pyproject.toml README.md ./
COPY bot ./bot
COPY handlers ./handlers
COPY services ./services
COPY db ./db
# No `local` extra: the local model runtime compiles for minutes and is not for customers.
RUN pip install . && rm -rf /src

RUN useradd --create-home --uid 10001 csbot && mkdir /data && chown csbot:csbot /data
USER csbot
WORKDIR /data
ENV CSBOT_DATABASE_URL=sqlite:////data/csbot.db \
    CSBOT_JOURNAL_PATH=/data/csbot-journal.jsonl \
    CSBOT_HTTP_HOST=0.0.0.0
VOLUME ["/data"]
EXPOSE 8080

ENTRYPOINT ["csbot"]
CMD ["chat"]
