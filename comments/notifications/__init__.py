"""Mail to readers and editors: subscriptions, the outbox, composing and sending, the subscription pages."""
