"""infra's command, offered by the comments app too, so a project needs only "comments" in INSTALLED_APPS."""

from infra.management.commands.ensure_indexes import Command

__all__ = ["Command"]
