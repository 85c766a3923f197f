"""infra's command, offered by the comments app too, so a project needs only "comments" in INSTALLED_APPS."""

from infra.management.commands.shard_collections import Command

__all__ = ["Command"]
