from django.apps import AppConfig


class ApiConfig(AppConfig):
    """The JSON API of the comments (/api/v1/): the same services and visibility rules
    as the HTML pages, described by an OpenAPI 3.1 document."""

    name = "api"
    verbose_name = "JSON API"

    def ready(self):
        from api import tokens
        from infra import mongo

        mongo.register_indexes(tokens.ensure_indexes)
