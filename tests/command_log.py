"""The MongoDB commands this process sends, as pymongo's monitoring reports them: one
listener for every test that counts or reads commands (tests/database.py's `commands`
fixture, the recipes host's checks). Blog-free: any host's tests may import it."""

from __future__ import annotations

from pymongo import monitoring

WRITES = frozenset({"insert", "update", "delete", "findAndModify"})


class CommandCounter(monitoring.CommandListener):
    """Keeps the name and body of every command started; `register()` it at import,
    before the process's client is made (a client sees only listeners registered
    before it)."""

    def __init__(self) -> None:
        self.names: list[str] = []
        self.sent: list[dict] = []

    def started(self, event: monitoring.CommandStartedEvent) -> None:
        self.names.append(event.command_name)
        self.sent.append(dict(event.command))

    def succeeded(self, event: monitoring.CommandSucceededEvent) -> None:
        pass

    def failed(self, event: monitoring.CommandFailedEvent) -> None:
        pass

    def reset(self) -> None:
        self.names.clear()
        self.sent.clear()

    @property
    def count(self) -> int:
        return len(self.names)

    def finds(self, collection: str, *, hint: str | None = None) -> list[dict]:
        """The `find` commands kept on this collection (given `hint`, those naming that index)."""
        return [c for c in self.sent if c.get("find") == collection and (hint is None or c.get("hint") == hint)]

    @property
    def writes(self) -> list[str]:
        """The write commands among those kept, in order."""
        return [name for name in self.names if name in WRITES]


def registered() -> CommandCounter:
    """A new counter, registered with pymongo's monitoring."""
    counter = CommandCounter()
    monitoring.register(counter)
    return counter
