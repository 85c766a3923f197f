"""Health endpoints for load balancers and orchestrators.

`/healthz/live` says the process answers and touches nothing. `/healthz/ready` says
whether this process can serve pages: Django's database and MongoDB both answer
within a short budget. A failure names the part, never a host name or a secret.
"""

from __future__ import annotations

from django.db import connection
from django.db.utils import DatabaseError
from django.http import JsonResponse
from django.views.decorators.cache import never_cache
from pymongo.errors import PyMongoError

from infra import mongo

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


@never_cache
def ready(request):
    checks = {
        "django_db": "ok" if check_django_db() else "unavailable",
        "mongodb": "ok" if check_mongodb() else "unavailable",
    }
    healthy = all(state == "ok" for state in checks.values())
    return JsonResponse({"status": "ok" if healthy else "unavailable", "checks": checks}, status=200 if healthy else 503)
