"""The import engine with its bodies rendered by worker processes
(comments/transfer/import_render.py): the same comments as rendered in the importer's
own process, under the same parents, and a run stopped in the middle of it (kill -9
after a write) finished by the next with every comment once."""

from datetime import UTC, datetime, timedelta

import pytest
from pymongo.collection import Collection

from comments.stores import get_store
from comments.transfer import import_ledger, import_render
from comments.transfer.import_records import SourceComment, SourceThread
from comments.transfer.importing import Importer

START = datetime(2016, 3, 1, 9, tzinfo=UTC)
BODIES = ["<p>a *star* &amp; <a href=\"https://example.org/x y\">link</a></p>", "<p>1986. a year</p><p>two</p>",
          "<ul><li>one</li><li>two</li></ul>", "<pre><code>x = `1`</code></pre>", "<p>line<br>break</p>"]


def comments(source: str) -> list[SourceComment]:
    """Roots with replies, and one reply that comes before its parent."""
    out = [SourceComment(source=source, id=str(k), thread="t1", parent=None if k % 3 == 0 else str(k - 1),
                         posted=START + timedelta(minutes=k), html=BODIES[k % len(BODIES)], author_name="R",
                         status="spam" if k == 6 else "approved")
           for k in range(24)]
    out[10], out[11] = out[11], out[10]
    return out


def run(post, source: str, *, workers: int) -> None:
    importer = Importer(source=source, batch_size=4, render_workers=workers)
    importer.add_thread(SourceThread(source=source, key="t1"), post_id=post.id)
    for comment in comments(source):
        importer.add(comment)
    importer.finish()


def shown(post) -> dict[str, tuple]:
    """Each stored comment by its source id: its parent's source id, text, html,
    status, placeholder."""
    documents = list(get_store().iter_documents(discussion_id=post.id))
    source_of = {d["_id"]: d["imported"]["id"] for d in documents}
    assert len(source_of) == len(documents)
    return {d["imported"]["id"]: (source_of.get(d["parent_id"]), d["text"], d["html"], d["status"],
                                  d.get("placeholder", False)) for d in documents}


class Killed(BaseException):
    """The process is gone."""


@pytest.mark.stores("documents")
@pytest.mark.usefixtures("each_store")
def test_the_pool_renders_as_the_importer_does_and_a_killed_run_is_finished(make_post, monkeypatch):
    monkeypatch.setattr(import_render, "POOL_MINIMUM", 1)
    monkeypatch.setattr(import_render, "_worker_peak_kb", 0)
    here, pooled = make_post(), make_post()
    run(here, "here", workers=0)
    assert import_render.worker_peak_kb() == 0
    writes = [0]
    insert_many = Collection.insert_many

    def killed_after_two(self, *args, **kwargs):
        if writes[0] == 2:
            raise Killed
        writes[0] += 1
        return insert_many(self, *args, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(Collection, "insert_many", killed_after_two)
        with pytest.raises(Killed):
            run(pooled, "pooled", workers=1)
    assert 0 < len(shown(pooled)) < 24
    run(pooled, "pooled", workers=1)
    assert import_render.worker_peak_kb() > 0  # the pool rendered them
    assert shown(pooled) == shown(here) and len(shown(here)) == 24
    assert shown(here)["6"][4] is True  # the spam root with approved replies is a placeholder
    assert import_ledger.ledger().count_documents({"_id": {"$regex": "^pooled:"}}) == 24
