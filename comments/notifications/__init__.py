"""Mail to readers and editors: subscriptions, the outbox, composing and sending, the subscription pages, and the signed links that moderate from the editors' queue mail."""
