from django.apps import AppConfig


class InfraConfig(AppConfig):
    """The MongoDB platform: one client per process, time budgets, index and shard-key
    registration, the development database. Apps register what they own in `ready()`."""

    name = "infra"
    verbose_name = "MongoDB platform"
