"""The comments app's signals: what hosts and the app's own notifications
(comments/notifications/notify.py, connected in `CommentsConfig.ready()`) hear about comments.
Sent by the services after the change is stored, with `sender=Comment`.

- `comment_posted(comment, discussion, duplicate)`: a comment was posted through
  `services.post_comment` (a reader's form, the JSON API). `duplicate`: the same
  form or text was sent again and `comment` is the one stored before (receivers must
  be idempotent: the first send may have been cut short). Bulk loads (demo content,
  imports: `summarise=False`) send nothing.
- `comment_status_changed(comment_ids, status)`: these comments now have `status`
  (an editor's action, a reader's flags holding one, an author's edit or delete).
  A recorded moderation action sends it again for a batch it runs again, with
  `undone=True` when it is an editor's undo (comments/moderation/undo.py): an
  approval undone, or a comment put back as it was.
- `comment_flagged(comment, reason, count, held)`: a reader flagged a comment;
  `count` is its flags now, `held`: this flag sent it to the moderation queue.
- `comment_voted(comment, vote)`: a reader's vote changed a comment's tally
  (`vote`: their vote now, up, down or none; `comment`: as it is after). A vote that
  changes nothing (the same vote again) sends nothing.

Receivers run in the request or command that made the change; a receiver that
raises makes that request fail after the change is stored, so receivers catch what
they can survive (as the notifications do with an outage).
"""

from django.dispatch import Signal

comment_posted = Signal()
comment_status_changed = Signal()
comment_flagged = Signal()
comment_voted = Signal()
