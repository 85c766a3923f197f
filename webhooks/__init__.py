"""Signed webhooks: editors name a URL and the comment events it hears of; each event
is stored as a delivery for every webhook that wants it (in the request, one insert)
and POSTed by `send_webhooks`, outside any request, signed with the webhook's secret,
retried with back-off for a day, every attempt logged.

A site app: it hears of comments through comments.api's signals and shows a comment
as the JSON API does (api/reading.py), so it stands beside api/ and the dashboard's
pages (dashboard/webhooks.py) use it. Modules: `signing` (the signature), `targets`
(which URLs may be called), `transport` (one bounded POST), `hooks` and `deliveries`
(the two collections), `events` (the signal receivers and the bodies), `sender` (the
delivery pool). docs/webhooks.md describes it.
"""
