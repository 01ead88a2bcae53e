#!/usr/bin/env bash
# The API load bench on PostgreSQL + Redis: gunicorn, two Celery worker processes, then
# bench/api_load.py. Uses (and drops) its own database; Redis databases 4 and 5.
# The Policy is the one the data set is documented for (../shared/evaldata/README.md,
# numbers-only.json: citations off, since TAT-QA answers cite nothing) with validator-only
# approval on, so the validator's APPROVE verdicts are approved and the export pull has them.
# The Celery workers run under `nice -n 10` (BENCH_WORKER_NICE, 0 to turn it off), as docs/production.md
# recommends wherever workers share cores with gunicorn: the web answers first, validation
# (asynchronous, and well above its target) takes the CPU the web leaves.
# With BENCH_WEBHOOK_URL set, the bench pipeline gets a webhook endpoint at that URL (its
# host allowed) and a webhook worker runs beside the others: a slow or dead receiver there
# must leave the ingest figures as they were.
#   PGHOST=127.0.0.1 bench/run_api_load.sh [--count 1000]
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-.venv/bin}
DB=${BENCH_DB:-redline_api_bench}
export PGUSER=${PGUSER:-postgres} PGHOST=${PGHOST:-127.0.0.1}
export DATABASE_URL="postgres://$PGUSER@$PGHOST:5432/$DB"
export CELERY_BROKER_URL=${BENCH_BROKER:-redis://127.0.0.1:6379/4}
export REDLINE_CACHE_URL=${BENCH_CACHE:-redis://127.0.0.1:6379/5}
export REDLINE_QUEUE=redline-api-bench REDLINE_SECRET_KEY=bench-only-secret-key-0123456789abcdef
export REDLINE_HTTPS=0 REDLINE_ALLOWED_HOSTS=127.0.0.1,localhost REDLINE_LOG_LEVEL=WARNING
export REDLINE_BIND=127.0.0.1:${BENCH_PORT:-8765} REDLINE_WEB_WORKERS=${BENCH_WEB_WORKERS:-2} REDLINE_WEB_THREADS=${BENCH_WEB_THREADS:-4}
export PROMETHEUS_MULTIPROC_DIR=$(mktemp -d)
export REDLINE_METRICS_ALLOW=127.0.0.1/32  # the bench reads /metrics straight from loopback
dropdb --if-exists "$DB"; createdb "$DB"
redis-cli -u "$CELERY_BROKER_URL" flushdb >/dev/null
$BIN/python manage.py migrate --noinput >/dev/null
$BIN/python manage.py shell -c "
from django.contrib.auth.models import User
from validation.models import Policy
p = Policy.load(); p.allow_validator_only_approval = True
p.citations = 'none'  # ../shared/evaldata/numbers-only.json: these answers cite nothing
p.save()
User.objects.create_user('bench')" >/dev/null
TOKEN=$($BIN/python manage.py api_token create bench --scope write 2>/dev/null)
HOOKS=""
if [ -n "${BENCH_WEBHOOK_URL:-}" ]; then
  export REDLINE_WEBHOOK_QUEUE=redline-api-bench-webhooks
  REDLINE_WEBHOOK_ALLOWED_HOSTS=$(echo "$BENCH_WEBHOOK_URL" | sed -E 's#^[a-z]+://([^:/]+).*#\1#')
  export REDLINE_WEBHOOK_ALLOWED_HOSTS
  $BIN/python manage.py webhook add default "$BENCH_WEBHOOK_URL" >/dev/null 2>&1
  $BIN/celery -A project worker -Q "$REDLINE_WEBHOOK_QUEUE" --pool threads --concurrency 16 \
    --loglevel WARNING >var/bench-webhook-worker.log 2>&1 &
  HOOKS=$!
fi
$BIN/gunicorn -c python:project.gunicorn_conf project.wsgi >var/bench-gunicorn.log 2>&1 &
WEB=$!
nice -n "${BENCH_WORKER_NICE:-10}" $BIN/celery -A project worker -Q "$REDLINE_QUEUE" --concurrency 2 --loglevel WARNING >var/bench-worker.log 2>&1 &
WORKER=$!
trap 'kill $WEB $WORKER $HOOKS 2>/dev/null; wait 2>/dev/null; dropdb --if-exists "$DB"; rm -rf "$PROMETHEUS_MULTIPROC_DIR"' EXIT
for _ in $(seq 50); do curl -sf "http://$REDLINE_BIND/healthz" >/dev/null && break; sleep 0.2; done
# Where the CPU goes during the run: web, workers, PostgreSQL (the backends of this database),
# as utime + stime from /proc (fields 14 and 15), less what start-up took. The client's own is
# printed by api_load.py.
cpu() {
  local pg
  pg=$(ps -eo pid=,args= | awk -v db="$DB" '$0 ~ "postgres: .* " db " " {print $1}')
  for group in "$WEB $(pgrep -P $WEB)" "$WORKER $(pgrep -P $WORKER)" "${pg:-0}"; do
    for pid in $group; do cut -d')' -f2- "/proc/$pid/stat" 2>/dev/null; done |
      awk -v hz="$(getconf CLK_TCK)" '{s += $12 + $13} END {printf "%.2f ", s / hz}'
  done
}
sleep 2  # the workers' start-up (imports, the first sweep) is over
read -r WEB0 WORKER0 PG0 <<<"$(cpu)"
$BIN/python bench/api_load.py --base-url "http://$REDLINE_BIND" --token "$TOKEN" "$@"
read -r WEB1 WORKER1 PG1 <<<"$(cpu)"
echo "CPU seconds during the run: web $(echo "$WEB1 - $WEB0" | bc), workers \
$(echo "$WORKER1 - $WORKER0" | bc), PostgreSQL backends of $DB $(echo "$PG1 - $PG0" | bc) \
(a PostgreSQL backend that closed is not counted); workers' nice ${BENCH_WORKER_NICE:-10}; \
load average $(cut -d' ' -f1-3 /proc/loadavg)"
curl -s "http://$REDLINE_BIND/metrics" | grep -E '^redline_(attempts_total|queue_depth|api_requests_total)' | head -12
