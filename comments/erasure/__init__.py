"""Erasing a member's data from the comments app (a closed account's): their comments
become placeholders that keep the replies below them, with no text, name, address or
IP left in any store or copy; their votes leave the tallies; their subscriptions,
confirmed addresses and mail in the outbox go. `jobs` records each erasure (the
`comment_erasures` collection) so a run cut short is finished by the next; `work`
does it, a bounded share at a time, and `batch` erases one batch of comments in
bulk. This room imports the stores and every room below reading; the host calls it
through comments.api."""
