from django.urls import path, re_path

from api import reference
from api.v1 import api, no_such_endpoint

urlpatterns = [
    path("v1/reference/", reference.reference, name="api_reference"),
    path("v1/", api.urls),
    # Anything else under /api/ (a slug no post can have, an unknown path): a problem, not an HTML page.
    re_path(r"^", no_such_endpoint),
]
