from django.urls import path

from api import reference
from api.v1 import api

urlpatterns = [
    path("v1/reference/", reference.reference, name="api_reference"),
    path("v1/", api.urls),
]
