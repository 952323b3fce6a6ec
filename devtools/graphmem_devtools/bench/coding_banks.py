"""Text banks of the generated coding-assistant histories (``graphmem bench coding``).

Every topic has file paths, function names, error messages, user requests, explanation paragraphs,
a code block and shell output, all with slots (``{project}``, ``{pkg}``, ``{file}``, ``{func}``,
``{error}``, ``{n}``, ``{m}``, ``{test}``, ``{table}``, ``{lib}``) that
:mod:`graphmem_devtools.bench.coding_data` fills from the seeded generator. The fact banks hold the
labelled needles: a question, the evidence sentence (a paraphrase, not the question's words) and the
values drawn for it; each topic's filler paragraphs use the same vocabulary, so distractor sessions
of other projects (and of the same project at other times) look alike.
"""

from __future__ import annotations

from typing import Any

__all__ = ["AGGREGATIONS", "DECISIONS", "GENERIC", "LIBS", "PREFERENCES", "PROJECTS", "SINGLES", "TABLES",
           "TEMPORALS", "TOPICS", "UPDATES", "WHEN"]

PROJECTS = ["billing-service", "ingest-pipeline", "mobile-api", "search-indexer", "auth-gateway", "report-builder",
            "inventory-sync", "notification-hub", "checkout-web", "metrics-agent", "ledger-core", "media-transcoder"]
LIBS = ["httpx", "SQLAlchemy", "Alembic", "Celery", "pydantic", "structlog", "FastAPI", "redis-py", "boto3",
        "pytest-xdist", "tenacity", "orjson"]
TABLES = ["orders", "invoices", "customers", "events", "sessions", "payouts", "shipments", "audit_log", "line_items",
          "subscriptions"]

TOPICS: dict[str, dict[str, list[str]]] = {
    "retries": {
        "files": ["{pkg}/clients/http.py", "{pkg}/webhooks/deliver.py", "{pkg}/integrations/partner_api.py"],
        "funcs": ["send_with_retry", "deliver_webhook", "call_partner", "post_event"],
        "errors": ["httpx.ConnectTimeout", "503 Service Unavailable from the partner API", "httpx.ReadTimeout after 30 s",
                   "ConnectionResetError: [Errno 104] Connection reset by peer"],
        "asks": ["{func} in {file} keeps failing with {error} when the upstream is slow. Can you look at how we retry?",
                 "Can you add a test for {func} that simulates {error} and checks we do not hammer the server?",
                 "The logs show {error} in bursts around deploys. Is our retry loop in {file} doing something silly?",
                 "Could you make {func} respect the Retry-After header? Right now it ignores it."],
        "paras": ["Looking at {file}, {func} wraps the request in a bare `for attempt in range(...)` loop with a fixed "
                  "sleep, so when the upstream returns {error} every worker retries at the same moment and the load "
                  "spike repeats itself. That is the classic thundering-herd shape: {n} workers, all waking up "
                  "together.",
                  "The client also retries on every exception, including 400 and 422 answers that will never succeed. "
                  "I narrowed the retryable set to connection errors, timeouts, 502/503/504 and 429, and the rest are "
                  "raised to the caller with the response body attached so the error message is useful.",
                  "I ran the suite against the stubbed transport: the timing-sensitive test now uses an injected "
                  "clock instead of real sleeps, so it finishes in milliseconds and does not flake on a busy CI "
                  "runner.",
                  "One more thing I noticed: the timeout is set per attempt ({m} s) but there is no overall deadline, "
                  "so a request can hang for minutes before the caller sees anything. I added a total budget."],
        "code": ["```python\nasync def {func}(client: httpx.AsyncClient, url: str, payload: dict[str, Any]) -> "
                 "httpx.Response:\n    deadline = time.monotonic() + TOTAL_BUDGET_S\n    for attempt in "
                 "itertools.count(1):\n        try:\n            resp = await client.post(url, json=payload, "
                 "timeout={m})\n            if resp.status_code not in RETRYABLE_STATUS:\n                return resp\n"
                 "        except (httpx.ConnectTimeout, httpx.ReadTimeout) as exc:\n            log.warning(\"retrying\","
                 " attempt=attempt, error=str(exc))\n        if time.monotonic() > deadline:\n            raise "
                 "DeliveryFailed(url)\n        await asyncio.sleep(compute_delay(attempt))\n```"],
        "shell": ["```\n$ pytest tests/test_{func}.py -q\n..F.\nFAILED tests/test_{func}.py::test_gives_up_after_budget"
                  " - AssertionError: expected DeliveryFailed, got {error}\n1 failed, 3 passed in 0.{n}s\n```"],
    },
    "migrations": {
        "files": ["migrations/versions/00{n}_add_{table}_columns.py", "migrations/env.py", "{pkg}/db/models.py"],
        "funcs": ["upgrade", "downgrade", "backfill_{table}", "run_migrations_online"],
        "errors": ["sqlalchemy.exc.OperationalError: lock timeout", "psycopg.errors.DuplicateColumn",
                   "alembic.util.exc.CommandError: Multiple head revisions are present",
                   "canceling statement due to statement timeout"],
        "asks": ["The migration test for {table} is red with {error}. What is going on in {file}?",
                 "Can you write the Alembic migration that adds the new columns to {table}?",
                 "Staging deploy stalled on {error} during the migration step. Can you check {file}?",
                 "I need {func} to be reversible; can you review the downgrade path?"],
        "paras": ["The migration in {file} adds the column and fills it in the same transaction, which keeps a lock "
                  "on {table} for the whole backfill. On the staging copy ({n} million rows) that is long enough for "
                  "the application's own queries to pile up behind it and hit {error}.",
                  "Alembic's autogenerate picked up a spurious change on the `server_default` of the created_at "
                  "column because the model says `func.now()` and the database reports `now()`. I removed that "
                  "operation from the revision by hand; it is noise, not a schema change.",
                  "I ran `alembic upgrade head` and `alembic downgrade -1` against a throwaway Postgres container "
                  "to check both directions; the downgrade drops the index first, then the column, so it works on "
                  "a populated table too.",
                  "There were two heads because the {table} branch and the reporting branch both descended from the "
                  "same revision. I added a merge revision instead of rewriting history, since one of them is "
                  "already applied in staging."],
        "code": ["```python\ndef upgrade() -> None:\n    op.add_column(\"{table}\", sa.Column(\"region\", sa.Text(), "
                 "nullable=True))\n    op.create_index(\"ix_{table}_region\", \"{table}\", [\"region\"], "
                 "postgresql_concurrently=True)\n\n\ndef downgrade() -> None:\n    op.drop_index(\"ix_{table}_region\","
                 " table_name=\"{table}\")\n    op.drop_column(\"{table}\", \"region\")\n```"],
        "shell": ["```\n$ pytest tests/migrations -q -k {table}\nE   {error}\nE   [SQL: ALTER TABLE {table} ADD "
                  "COLUMN region TEXT]\nFAILED tests/migrations/test_upgrade.py::test_upgrade_head_{table}\n1 failed,"
                  " {n} passed in 14.2s\n```"],
    },
    "parser": {
        "files": ["{pkg}/parsing/csv_reader.py", "{pkg}/parsing/log_lines.py", "{pkg}/importers/feed.py"],
        "funcs": ["parse_row", "read_feed", "split_fields", "parse_timestamp"],
        "errors": ["UnicodeDecodeError: 'utf-8' codec can't decode byte 0xff", "ValueError: could not convert string "
                   "to float: '1,5'", "IndexError: list index out of range", "csv.Error: field larger than field limit"],
        "asks": ["The nightly import blew up in {func} with {error}. Sample file attached, can you see why?",
                 "Can you make {func} in {file} tolerant of the supplier's weird quoting?",
                 "{file} is slow on the big feeds, about {n} MB. Any idea where the time goes?",
                 "Please add property tests for {func}; I do not trust the hand-written cases."],
        "paras": ["The supplier's file starts with a byte-order mark and uses Windows line endings, and {func} opens "
                  "it with the default encoding, so the first header is read as '\\ufeffsku' and every lookup by "
                  "column name misses. That explains the {error} further down.",
                  "Decimal numbers in the European feeds use a comma, so `float()` fails; I now parse them with the "
                  "feed's declared locale instead of guessing, and reject rows whose locale is unknown instead of "
                  "silently writing zeros.",
                  "Profiling shows most of the time in the per-row regular expression in {file}; compiling it once at "
                  "module level and switching to `csv.reader` for the split brings the {n} MB file from {m} s down "
                  "to a few seconds.",
                  "Quoted fields with embedded newlines were the other problem: the old code split on newlines before "
                  "the CSV reader saw the data, which cuts such a field in two."],
        "code": ["```python\ndef {func}(raw: bytes, *, locale: str) -> Iterator[Row]:\n    text = raw.decode(\"utf-8-sig\""
                 ")\n    reader = csv.DictReader(io.StringIO(text, newline=\"\"))\n    for lineno, rec in "
                 "enumerate(reader, start=2):\n        try:\n            yield Row(sku=rec[\"sku\"], price="
                 "parse_decimal(rec[\"price\"], locale))\n        except (KeyError, InvalidOperation) as exc:\n"
                 "            raise FeedError(f\"line {{lineno}}: {{exc}}\") from exc\n```"],
        "shell": ["```\n$ python -m {pkg}.importers.feed data/sample.csv\nTraceback (most recent call last):\n  File "
                  "\"{file}\", line {n}, in {func}\n{error}\n```"],
    },
    "caching": {
        "files": ["{pkg}/cache.py", "{pkg}/catalog/product_cache.py", "{pkg}/settings/redis.py"],
        "funcs": ["get_or_load", "invalidate", "cached_product", "warm_cache"],
        "errors": ["redis.exceptions.ConnectionError: Error 111 connecting", "stale price shown after an update",
                   "MemoryError in the local LRU", "redis.exceptions.TimeoutError"],
        "asks": ["Customers see {error}. Can you check how {func} in {file} caches?",
                 "Should {func} fall back to the database when Redis is down? Right now we get {error}.",
                 "Can you add metrics for the hit rate of {func}?",
                 "The cache warm-up in {file} takes {n} minutes after a deploy. Can we do better?"],
        "paras": ["{func} caches the whole product document under one key and nothing removes the key when a price "
                  "changes, so readers keep the old value until the entry expires on its own. That matches the "
                  "report of {error}.",
                  "When Redis is unreachable the client raises {error} and the request fails, although the "
                  "database could answer. I wrapped the cache calls so a cache outage degrades to a slower "
                  "response and a warning, never an error page.",
                  "The hit rate we log is per process, which hides the picture; I added a Prometheus counter pair "
                  "(hits, misses) labelled by cache name so the dashboard shows {n} % overall.",
                  "Warm-up loads every product one by one; batching with `MGET` in chunks of {m} keys and a "
                  "pipeline for the writes cuts it to a fraction."],
        "code": ["```python\ndef {func}(key: str, loader: Callable[[], bytes], ttl: int) -> bytes:\n    try:\n        "
                 "hit = redis_client.get(key)\n    except redis.exceptions.RedisError:\n        log.warning(\"cache "
                 "unavailable\", key=key)\n        return loader()\n    if hit is not None:\n        CACHE_HITS.inc()\n"
                 "        return hit\n    CACHE_MISSES.inc()\n    value = loader()\n    redis_client.set(key, value, "
                 "ex=ttl)\n    return value\n```"],
        "shell": ["```\n$ redis-cli -p 63{n} info stats | grep keyspace\nkeyspace_hits:{m}{n}81\nkeyspace_misses:{n}{m}3"
                  "\n```"],
    },
    "ratelimit": {
        "files": ["{pkg}/api/middleware/limits.py", "{pkg}/api/routes.py", "{pkg}/api/deps.py"],
        "funcs": ["rate_limit", "TokenBucket.take", "limit_by_key", "client_key"],
        "errors": ["429 Too Many Requests for legitimate clients", "a scraper sending {n}k requests per minute",
                   "KeyError: 'X-Api-Key'", "limiter state lost on restart"],
        "asks": ["We got {error} last night. Can you look at the limiter in {file}?",
                 "Can you add per-key limits to the public API? {func} only limits by IP.",
                 "Is {func} safe with several workers? I suspect each worker keeps its own counters.",
                 "Please write tests for the limiter's headers (X-RateLimit-Remaining and Retry-After)."],
        "paras": ["The limiter in {file} counts in process memory, so with {n} workers behind the load balancer a "
                  "client effectively gets {n} times the limit, and after a restart the counters start at zero.",
                  "I moved the buckets to Redis with a small Lua script so that the check and the decrement are one "
                  "atomic step; the script returns the remaining tokens so the middleware can fill the headers.",
                  "Limits are keyed by API key when there is one and by client IP otherwise; requests from our own "
                  "health checks are exempt because they carry the internal token.",
                  "The tests drive the bucket with a fake clock: {m} requests pass, the next one gets 429 with a "
                  "Retry-After of one second, and after advancing the clock the client is let through again."],
        "code": ["```python\nasync def {func}(request: Request, call_next: RequestHandler) -> Response:\n    key = "
                 "client_key(request)\n    allowed, remaining, retry_after = await buckets.take(key, cost=1)\n    if "
                 "not allowed:\n        return JSONResponse({{\"detail\": \"rate limited\"}}, status_code=429,\n"
                 "                            headers={{\"Retry-After\": str(retry_after)}})\n    response = await "
                 "call_next(request)\n    response.headers[\"X-RateLimit-Remaining\"] = str(remaining)\n    return "
                 "response\n```"],
        "shell": ["```\n$ hey -n {n}000 -c 50 https://staging.example.internal/v1/search\nStatus code distribution:\n"
                  "  [200] {m}12 responses\n  [429] {n}88 responses\n```"],
    },
    "auth": {
        "files": ["{pkg}/auth/tokens.py", "{pkg}/auth/middleware.py", "{pkg}/auth/oauth.py"],
        "funcs": ["issue_token", "verify_token", "refresh_session", "require_scope"],
        "errors": ["401 Unauthorized right after login", "jwt.exceptions.ExpiredSignatureError",
                   "jwt.exceptions.InvalidAudienceError", "clock skew of {n} s between hosts"],
        "asks": ["Users get {error}. Can you check {func} in {file}?",
                 "Can you add refresh token rotation to {file}?",
                 "Please review the scopes check in {func}; I think admin endpoints are too open.",
                 "Mobile clients report {error} after the app was in the background. Ideas?"],
        "paras": ["{func} verifies the signature with a zero leeway, and two of the API hosts drift by about {n} "
                  "seconds, so a token minted on one is sometimes 'not yet valid' on the other. That is where the "
                  "{error} comes from.",
                  "Refresh tokens are stored hashed, with the family id, so a reused (already rotated) refresh token "
                  "revokes the whole family: that is the standard defence against a stolen refresh token.",
                  "The admin routes checked only that a token was present, not its scopes; {func} now takes the "
                  "required scope and the route declarations say which one they need.",
                  "I added tests with a frozen clock for the expiry edges: {m} seconds before expiry passes, at "
                  "expiry fails, and the leeway is applied symmetrically."],
        "code": ["```python\ndef {func}(token: str, *, audience: str, now: datetime) -> Claims:\n    claims = "
                 "jwt.decode(token, PUBLIC_KEYS, algorithms=[\"RS256\"], audience=audience,\n                        "
                 "leeway=LEEWAY_S, options={{\"require\": [\"exp\", \"iat\", \"sub\"]}})\n    if "
                 "claims[\"iat\"] > now.timestamp() + LEEWAY_S:\n        raise TokenError(\"issued in the future\")\n"
                 "    return Claims.model_validate(claims)\n```"],
        "shell": ["```\n$ pytest tests/auth -q\n.....F..\nFAILED tests/auth/test_tokens.py::test_{func}_expiry - "
                  "{error}\n1 failed, 7 passed in 1.{n}s\n```"],
    },
    "ci": {
        "files": [".github/workflows/ci.yml", "noxfile.py", "tests/conftest.py"],
        "funcs": ["test_export_roundtrip", "test_worker_shutdown", "test_concurrent_updates", "session_fixture"],
        "errors": ["the job timed out after 60 minutes", "ModuleNotFoundError: No module named '{pkg}._version'",
                   "a flaky failure in {func}", "pip's resolver picked an old {lib}"],
        "asks": ["CI is red again: {error}. Can you look at {file}?",
                 "Can you make the test job faster? It takes {n} minutes on every push.",
                 "{func} fails on CI about one run in ten but never locally. Can you find out why?",
                 "Please split the slow integration tests into their own CI job."],
        "paras": ["The cache key of the pip cache in {file} only hashes requirements.txt, so a change to the dev "
                  "requirements reuses an old environment; that is how {error} happened. The key now hashes every "
                  "requirements file and the Python version.",
                  "The flaky {func} depends on the order in which two background threads finish; on the two-core CI "
                  "runners the other order happens often. I replaced the sleep with an event the test waits on.",
                  "Running the unit tests with pytest-xdist across {m} workers brings the job from {n} minutes to "
                  "under five; the integration tests stay serial because they share one database.",
                  "I also pinned the runner image; the upgrade of the hosted image last month changed the default "
                  "Python and that is what broke the build before."],
        "code": ["```yaml\n  test:\n    runs-on: ubuntu-22.04\n    timeout-minutes: 30\n    steps:\n      - uses: "
                 "actions/checkout@v4\n      - uses: actions/setup-python@v5\n        with:\n          "
                 "python-version: \"3.1{m}\"\n          cache: pip\n          cache-dependency-path: "
                 "requirements*.txt\n      - run: pip install -r requirements-dev.txt\n      - run: pytest -n {m} "
                 "-q tests/unit\n```"],
        "shell": ["```\n$ gh run view --log-failed | tail -5\n  FAILED tests/test_jobs.py::{func}\n  Error: "
                  "{error}\n  ##[error]Process completed with exit code 1.\n```"],
    },
    "jobs": {
        "files": ["{pkg}/tasks/nightly.py", "{pkg}/tasks/celery_app.py", "{pkg}/tasks/export.py"],
        "funcs": ["run_nightly_export", "reconcile_{table}", "send_digest", "cleanup_expired"],
        "errors": ["the export ran twice and sent duplicate emails", "celery.exceptions.SoftTimeLimitExceeded",
                   "kombu.exceptions.OperationalError", "a task stuck in STARTED for {n} hours"],
        "asks": ["{error} this morning. Can you look at {func} in {file}?",
                 "Can you move {func} from cron to Celery beat?",
                 "How do we stop {func} from running twice when a worker restarts mid-task?",
                 "Please add a dead-letter queue for tasks that keep failing."],
        "paras": ["Celery acknowledges the task late (`acks_late=True`), so when a worker is killed during a deploy "
                  "the broker hands the task to another worker and {func} runs again from the start. That is how "
                  "{error}.",
                  "The soft time limit is {n} minutes while the export regularly needs longer at month end; I raised "
                  "the limit for that task only and made it checkpoint its progress per batch of {m}00 rows.",
                  "Beat's schedule now lives in code next to the task, in UTC, so it no longer depends on the cron "
                  "host's time zone (which was the reason for the drift we saw around the clock change).",
                  "Failed tasks are retried three times and then routed to a dead-letter queue with the exception "
                  "and arguments, and an alert fires when that queue is not empty."],
        "code": ["```python\n@app.task(bind=True, acks_late=True, soft_time_limit={n} * 60)\ndef {func}(self: Task, "
                 "run_date: str) -> None:\n    with session_scope() as db:\n        if not claim_run(db, "
                 "name=self.name, run_date=run_date):\n            log.info(\"already done\", run_date=run_date)\n"
                 "            return\n        for batch in batches(db, size={m}00):\n            export_batch(db, "
                 "batch)\n```"],
        "shell": ["```\n$ celery -A {pkg}.tasks inspect active\n-> worker{m}@prod: OK\n    * {{'name': "
                  "'{pkg}.tasks.{func}', 'time_start': 17{n}3.2, 'acknowledged': True}}\n```"],
    },
    "logging": {
        "files": ["{pkg}/logging_setup.py", "{pkg}/api/request_id.py", "deploy/vector.toml"],
        "funcs": ["configure_logging", "bind_request_id", "redact_fields", "log_request"],
        "errors": ["logs without request ids", "tokens leaking into the access log", "duplicate log lines",
                   "UnicodeEncodeError in the log handler"],
        "asks": ["We have {error}. Can you fix {func} in {file}?",
                 "Can you make the logs machine-readable? Searching them in the log UI is painful.",
                 "Please add the request id to every log line of a request, including the background tasks.",
                 "{func} is noisy at INFO. Which messages should go to DEBUG?"],
        "paras": ["Both the root logger and the uvicorn logger have a handler, so each record is emitted twice; "
                  "{func} now clears the handlers it does not own and lets records propagate to one place.",
                  "The request id is bound in a contextvar at the start of the request and copied into the task "
                  "headers when we enqueue background work, so one id follows a request across {n} services.",
                  "The redaction processor drops the values of authorization headers, passwords and tokens before "
                  "rendering; I added a test that logs a fake token and asserts it never reaches the output.",
                  "At INFO we keep one line per request with method, path, status and duration; the per-query lines "
                  "move to DEBUG, which cuts the log volume by roughly {m}0 %."],
        "code": ["```python\ndef {func}(level: str = \"INFO\") -> None:\n    structlog.configure(\n        "
                 "processors=[\n            structlog.contextvars.merge_contextvars,\n            redact_fields,\n"
                 "            structlog.processors.TimeStamper(fmt=\"iso\", utc=True),\n            "
                 "structlog.processors.JSONRenderer(),\n        ],\n        wrapper_class=structlog.make_filtering_"
                 "bound_logger(logging.getLevelName(level)),\n    )\n```"],
        "shell": ["```\n$ kubectl logs deploy/{project} --since=10m | head -3\n{{\"event\": \"request\", \"path\": "
                  "\"/v1/items\", \"status\": 200, \"ms\": {n}{m}, \"request_id\": \"3f9c{m}a\"}}\n```"],
    },
    "pagination": {
        "files": ["{pkg}/api/pagination.py", "{pkg}/api/routes/{table}.py", "{pkg}/repo/{table}.py"],
        "funcs": ["list_{table}", "encode_cursor", "decode_cursor", "paginate"],
        "errors": ["duplicate items across pages", "the last page times out", "400 on a cursor from yesterday",
                   "OFFSET {n}0000 scanning the whole table"],
        "asks": ["Clients report {error} when listing {table}. Can you check {func}?",
                 "Can you review {file}? I think the sorting is not stable.",
                 "The export client pages through all {table}, and it gets slower with every page. Why?",
                 "Please add a `limit` parameter with a sane maximum to the list endpoints."],
        "paras": ["The list query orders by created_at alone, which is not unique: rows created in the same "
                  "millisecond can swap places between two requests, which produces {error}.",
                  "With OFFSET the database still reads and discards every skipped row, so page {n}00 costs a scan "
                  "of everything before it; that is the slowdown the export client sees.",
                  "The cursor is the base64 of the last row's sort key; it carries a version byte so that we can "
                  "change the sort later without breaking cursors that clients kept.",
                  "Invalid cursors now get a 400 with a message naming the parameter, instead of the 500 the "
                  "decoder used to raise on garbage input."],
        "code": ["```python\ndef {func}(db: Session, *, after: Cursor | None, limit: int) -> Page[Item]:\n    q = "
                 "select(Item).order_by(Item.created_at, Item.id).limit(limit + 1)\n    if after is not None:\n"
                 "        q = q.where(tuple_(Item.created_at, Item.id) > (after.created_at, after.id))\n    rows = "
                 "db.scalars(q).all()\n    return Page(items=rows[:limit], next=encode_cursor(rows[limit - 1]) if "
                 "len(rows) > limit else None)\n```"],
        "shell": ["```\n$ psql -c \"EXPLAIN ANALYZE SELECT * FROM {table} ORDER BY created_at OFFSET {n}0000 LIMIT "
                  "50\"\n Limit  (actual time={m}81.2..{m}81.9 rows=50 loops=1)\n   ->  Index Scan using "
                  "ix_{table}_created_at on {table}\n```"],
    },
    "deps": {
        "files": ["pyproject.toml", "requirements.txt", "constraints.txt"],
        "funcs": ["check_versions", "lock_dependencies", "build_wheel", "verify_env"],
        "errors": ["ImportError: cannot import name 'Mapping' from 'collections'", "pip's resolver conflict on {lib}",
                   "DeprecationWarning flood after upgrading {lib}", "a wheel missing for Python 3.1{m}"],
        "asks": ["After the upgrade we get {error}. Can you check {file}?",
                 "Can you bump {lib} to the current release and fix whatever breaks?",
                 "Should we pin exact versions in {file} or only upper bounds?",
                 "Dependabot opened {n} pull requests this week. Can you batch the safe ones?"],
        "paras": ["The application pins {lib} loosely in {file}, so a fresh install pulled a new major version "
                  "whose API changed; that is the {error}. I pinned it to the last compatible minor and opened a "
                  "separate task for the real upgrade.",
                  "For an application (not a library) exact pins in a lock file and ranges in pyproject.toml is the "
                  "usual split: reproducible deploys, and the ranges document what we believe works.",
                  "The changelog lists {n} breaking changes; only two affect us, both in the test helpers, and the "
                  "fix is mechanical.",
                  "I ran the full suite under `-W error::DeprecationWarning` to catch the warnings now rather than "
                  "at the next major version; {m} call sites needed updating."],
        "code": ["```toml\n[project]\nrequires-python = \">=3.1{m}\"\ndependencies = [\n    \"fastapi>=0.110,<1\",\n"
                 "    \"sqlalchemy>=2.0.{n},<2.1\",\n    \"httpx>=0.27,<0.28\",\n    \"structlog>=24.1\",\n]\n```"],
        "shell": ["```\n$ pip install -r requirements.txt\nERROR: Cannot install {lib}==1.{n}.0 because these package "
                  "versions have conflicting dependencies.\n```"],
    },
}

GENERIC = [
    "Before changing anything I read through {file} and the tests around it, to be sure the behaviour I describe "
    "below is what the code does today and not what the docstrings claim.",
    "Here is the relevant part of the change. I kept the public signature of {func} unchanged so the callers in "
    "the other modules do not need to move.",
    "I ran the whole suite locally after the change: {n}{m} tests, all green, and the type checker is clean.",
    "If you want, I can also open a follow-up for the related cleanup; it is not needed for this fix, so I kept "
    "the diff small and focused on {func}.",
    "A note on the trade-off: this adds one round trip in the rare failure case, but the common path is unchanged "
    "and the behaviour is now explicit instead of accidental.",
    "For reference, the traceback from the failing run (trimmed to the frames in our code):",
    "Let me know if the naming reads well to you; I went with the terms the rest of {project} already uses.",
]

# Facts. "q" is the question, "ev" the evidence (in the assistant reply unless "user" is set), "a"/"b" value pools.
DECISIONS: list[dict[str, Any]] = [
    {"topic": "retries", "q": "What did we agree on for retrying failed webhook deliveries in {project}?",
     "ev": "So the rule we settled on for {project}'s outbound calls: back off exponentially with full jitter, "
           "starting from {a} ms, and stop after {b} attempts; a 4xx other than 429 is never tried again.",
     "a": ["100", "200", "250", "500"], "b": ["3", "4", "5", "6"]},
    {"topic": "migrations", "q": "What approach did we pick for backfilling columns during schema changes in {project}?",
     "ev": "Agreed for {project}: a revision only adds the nullable column; filling it is a separate batched job "
           "({a} rows per batch) that runs after the deploy, never inside the Alembic transaction.",
     "a": ["1000", "5000", "10000", "20000"], "b": [""]},
    {"topic": "logging", "q": "Which log format did we choose for {project}?",
     "ev": "Going forward {project} emits one JSON object per line through structlog, with the request id and "
           "UTC timestamps, and the human-readable console renderer is only used when running locally.",
     "a": [""], "b": [""]},
    {"topic": "pagination", "q": "How did we decide list endpoints should page through results in {project}?",
     "ev": "For {project} we go with opaque cursors over (created_at, id) instead of offsets: default page of {a} "
           "items, {b} at most.",
     "a": ["20", "25", "50"], "b": ["100", "200", "500"]},
    {"topic": "auth", "q": "How long are access tokens valid in {project}, as we decided?",
     "ev": "Settled: in {project} an access token lives {a} minutes and a refresh token {b} days, and every refresh "
           "rotates it.",
     "a": ["5", "10", "15", "30"], "b": ["7", "14", "30"]},
    {"topic": "ci", "q": "What did we decide to do with flaky tests in the {project} pipeline?",
     "ev": "The policy for {project}: a test that flakes gets quarantined with a marker, runs in a separate "
           "non-blocking job, and gets a ticket; no automatic re-runs in the main job, which would hide real races.",
     "a": [""], "b": [""]},
    {"topic": "jobs", "q": "How did we make the nightly tasks of {project} safe against double runs?",
     "ev": "What we agreed for {project}: each run claims a row (task name, run date) in a job_runs table with a "
           "unique constraint first, and a second claim for the same date just logs and returns.",
     "a": [""], "b": [""]},
]

UPDATES: list[dict[str, Any]] = [
    {"topic": "caching", "q": "What is the expiry for cached product pages in {project} at the moment?",
     "first": "For {project} product pages I set the cache TTL to {a} seconds, which keeps the hit rate high.",
     "second": "Change of plan on {project}'s product cache: because of the stale prices the TTL goes down to {b} "
               "seconds, and a price update now deletes the key as well.",
     "a": ["300", "600", "900"], "b": ["30", "60", "90"]},
    {"topic": "deps", "q": "Which Python version does {project} target these days?",
     "first": "We keep {project} on Python 3.{a} for now; the base image has nothing newer.",
     "second": "{project} now targets Python 3.{b}: the new base image has it, and the CI matrix drops 3.{a}.",
     "a": ["9", "10"], "b": ["11", "12"]},
    {"topic": "jobs", "q": "At what time does the nightly export of {project} run now?",
     "first": "The nightly export of {project} is scheduled at 0{a}:00 UTC in beat.",
     "second": "I moved {project}'s nightly export to {b}:30 UTC so it no longer overlaps the backups.",
     "a": ["1", "2", "3"], "b": ["04", "05", "22"]},
    {"topic": "ratelimit", "q": "How many requests per minute can a client make on the {project} public API now?",
     "first": "The public API of {project} allows {a} requests per minute per key.",
     "second": "Per the partner feedback the limit of {project}'s public API is raised to {b} requests per minute "
               "per key, bursts included.",
     "a": ["60", "100", "120"], "b": ["300", "600", "1000"]},
]

WHEN = {"yesterday": 1, "three days ago": 3, "last week": 7, "two weeks ago": 14}
"""Time phrase -> days before the question's date that the evidence session lies."""

TEMPORALS: list[dict[str, Any]] = [
    {"topic": "migrations", "q": "Why did the migration test fail {when}?",
     "ev": ["The red test_upgrade_{table} run came from a lock: the backfill ran inside the revision's transaction "
            "and held {table} locked until the statement timeout hit.",
            "test_upgrade_{table} broke because the revision's down_revision pointed at a revision that had been "
            "squashed away, so Alembic found two heads.",
            "The upgrade test of {table} failed since the new NOT NULL column had no server default and the "
            "fixture rows could not be migrated.",
            "The migration test on {table} was red because the test database still had the old enum type, left "
            "over from an aborted run."]},
    {"topic": "parser", "q": "What did we change in the parser {when}?",
     "ev": ["I changed the feed parser so quoted fields may contain line breaks, and it now strips the byte-order "
            "mark before reading the header.",
            "The parser now reads decimals with the feed's declared locale, so '1,5' is one and a half instead of "
            "an error.",
            "In the parser, timestamps without a zone are now rejected instead of being taken as local time.",
            "The parser's per-row regular expression is compiled once now, and rows are split by the csv module."]},
    {"topic": "ci", "q": "Why was the build red {when}?",
     "ev": ["The pipeline failed because the pip cache key ignored requirements-dev.txt, so an outdated {lib} was "
            "installed.",
            "The pipeline went red since the hosted runner image switched its default Python and the wheel for "
            "{lib} was missing.",
            "The job failed on a race in the worker shutdown test: the sleep was too short on the two-core runner.",
            "The pipeline broke because a test wrote to the shared temp directory and a parallel test read it."]},
    {"topic": "retries", "q": "What went wrong with the partner calls {when}?",
     "ev": ["The partner outage turned into a retry storm: every worker retried on the same fixed delay, with no "
            "jitter, so each wave hit the partner at once.",
            "Calls to the partner hung because there was a per-attempt timeout but no overall deadline.",
            "We kept retrying 422 answers from the partner, which can never succeed, and filled the queue.",
            "The partner's certificate rotated and our pinned CA bundle rejected it, so every call failed."]},
]

AGGREGATIONS: list[dict[str, Any]] = [
    {"topic": "ratelimit", "q": "Which endpoints of {project} did we put request limits on?",
     "ev": "I put a token bucket in front of {x} ({a} requests per second per key).",
     "items": ["POST /v1/orders", "GET /v1/search", "POST /v1/login", "POST /v1/uploads", "GET /v1/reports/export",
               "POST /v1/password-reset"], "a": ["5", "10", "20", "50"]},
    {"topic": "migrations", "q": "Which tables did we add indexes to in {project}?",
     "ev": "The new revision creates an index concurrently on {x}.",
     "items": ["orders (customer_id, created_at)", "invoices (status)", "events (occurred_at)",
               "sessions (user_id)", "payouts (merchant_id, paid_at)"], "a": [""]},
    {"topic": "deps", "q": "Which feature flags did we introduce in {project}?",
     "ev": "This ships behind a new flag, `{x}`, off by default.",
     "items": ["new_checkout_flow", "async_exports", "strict_tax_rounding", "v2_search_ranking", "bulk_refunds"],
     "a": [""]},
]

SINGLES: list[dict[str, Any]] = [
    {"topic": "caching", "q": "On which port does the staging Redis of {project} listen?",
     "ev": "In staging the Redis instance for {project} is on port {a}, not the default one.",
     "a": ["6380", "6390", "7001", "6479"]},
    {"topic": "deps", "q": "Which SQLAlchemy release did we pin in {project}?",
     "ev": "{project} is pinned to sqlalchemy=={a} until the async session change lands.",
     "a": ["2.0.21", "2.0.25", "2.0.29", "1.4.52"]},
    {"topic": "logging", "q": "Where do the {project} worker logs end up on the hosts?",
     "ev": "The worker processes of {project} write to /var/log/{project}/worker-{a}.jsonl, rotated daily.",
     "a": ["main", "batch", "io", "cpu"]},
    {"topic": "jobs", "q": "How many Celery processes does {project} run in production?",
     "ev": "Production {project} runs {a} Celery worker processes, each with a concurrency of {b}.",
     "a": ["2", "3", "4", "6"], "b": ["4", "8", "16"]},
    {"topic": "auth", "q": "What is the name of the service account that deploys {project}?",
     "ev": "Deploys of {project} run as the service account svc-{project}-{a}, which only has the deploy role.",
     "a": ["ci", "deploy", "release", "rollout"]},
]

PREFERENCES: list[dict[str, Any]] = [
    {"q": "Which test framework do I like to use?", "topic": "ci",
     "ev": "By the way, I want tests written for pytest with plain assert statements, no unittest.TestCase classes."},
    {"q": "How should commit messages be written for me?", "topic": "deps",
     "ev": "And please: summary line in the imperative, under 60 characters, then a body saying why, not what."},
    {"q": "What is my position on mocking the database in tests?", "topic": "migrations",
     "ev": "I don't want the database faked in tests; start a real Postgres in a container instead of mocks."},
    {"q": "Which code formatter do I want on my projects?", "topic": "logging",
     "ev": "Also, run ruff format on everything; I dropped black and isort a while ago."},
    {"q": "What maximum line length do I like?", "topic": "parser",
     "ev": "Keep lines at most 100 characters wide, the 79 limit makes the code harder to read."},
    {"q": "How strict do I want type annotations to be?", "topic": "auth",
     "ev": "Every new function gets complete annotations and has to pass mypy in strict mode, no exceptions."},
]
