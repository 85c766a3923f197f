"""Health endpoints for load balancers and orchestrators.

`/healthz/live` says the process answers and touches nothing. `/healthz/ready` says
whether this process can serve pages: Django's database and MongoDB both answer
within a short budget. A failure names the part, never a host name or a secret.

On the sharded development cluster it also names each node (`mongodb_nodes`): with a
worker lost, the answer stays 200 with status "degraded" and names the worker, since
every discussion whose shard lives elsewhere is still served (docs/dev-cluster.md,
"When a worker is lost"); taking the process out of a load balancer then would turn
the loss of one shard into the loss of the site.
"""

from __future__ import annotations

from django.db import connection
from django.db.utils import DatabaseError
from django.http import JsonResponse
from django.views.decorators.cache import never_cache
from pymongo.errors import PyMongoError

from infra import mongo, sharding

READY_BUDGET_MS = 1000


@never_cache
def live(request):
    return JsonResponse({"status": "ok"})


def check_django_db() -> bool:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        return True
    except DatabaseError:
        return False


def check_mongodb() -> bool:
    try:
        mongo.ping(timeout_ms=READY_BUDGET_MS)
        return True
    except PyMongoError:
        return False


def check_nodes() -> dict[str, str] | None:
    """The development cluster's nodes, each "ok" or "unavailable"; None elsewhere."""
    try:
        return sharding.node_health(mongo.get_client(), timeout_s=READY_BUDGET_MS / 1000)
    except PyMongoError:
        return None


@never_cache
def ready(request):
    checks: dict[str, object] = {
        "django_db": "ok" if check_django_db() else "unavailable",
        "mongodb": "ok" if check_mongodb() else "unavailable",
    }
    healthy = all(state == "ok" for state in checks.values())
    nodes = check_nodes() if healthy else None
    if nodes:
        checks["mongodb_nodes"] = nodes
    status = "ok" if healthy else "unavailable"
    if healthy and nodes and any(state != "ok" for state in nodes.values()):
        status = "degraded"
    return JsonResponse({"status": status, "checks": checks}, status=200 if healthy else 503)
