"""The media library's storage: the `media_images` collection (one document per
image: its key, name, alt text, caption, size and renditions), the GridFS bucket
`media` (`media.files`, `media.chunks`) holding the renditions' bytes, each named
`<key>/<width>.<ext>`, and `media_pending`, the files that an upload or a deletion
under way may leave behind. This is the only module that touches them.

    media_images:  {_id, key, name, alt, decorative, caption, width, height, fallback,
                    renditions: [{width, height, ext, bytes, file_id}], uploaded,
                    uploaded_by, kind}

`kind` is set only on a member's picture ("member": media/avatars.py), which is
stored and served as the library's images are but never listed or searched with them.
    media_pending: {_id, key, files: [file_id], since}

Without transactions, an upload is all or nothing for readers because the image
document is the only way to its files: renditions are served through the document
that names their file ids, never by file name, so files no document names are never
served. An upload first records the ids its files will have (`media_pending`), then
writes the files, then the image document (the one write that makes the image
public), then forgets the record. Deleting records the image's files, deletes the
document (the image is gone for everyone), then its files, then the copies this
process's cache keeps (other processes' copies expire within MEDIA_CACHE_SECONDS; a
shared cache, CACHE_URL=redis://…, forgets them at once), then forgets the record.
A process killed on the way leaves a record: `clean_interrupted` (run before every
upload and by `manage.py clean_media`) deletes, once the record is older than
MEDIA_PENDING_SECONDS, the files it names that no image document holds, chunks
of a half-written file included.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING

import gridfs
from bson import ObjectId
from django.conf import settings
from django.core.cache import cache
from pymongo import ASCENDING, DESCENDING, IndexModel
from pymongo.database import Database
from pymongo.errors import DuplicateKeyError, PyMongoError

from infra.mongo import get_db
from infra.sharding import ShardKey
from media.formats import CONTENT_TYPES

if TYPE_CHECKING:  # Pillow is imported where uploads are processed, not by every page.
    from media.images import Processed

BUCKET = "media"
INDEXES = [
    IndexModel([("key", ASCENDING)], unique=True, name="key_unique"),
    IndexModel([("uploaded", DESCENDING), ("_id", DESCENDING)], name="uploaded"),
]
PENDING_INDEXES = [IndexModel([("since", ASCENDING)], name="since")]
# GridFS's own indexes on its two collections (pymongo creates them on a bucket's first
# write; declared here too so `ensure_indexes` makes them before any upload): files by
# name (serving), chunks by file and number (reading, and the shard key's prefix).
FILES_INDEXES = [IndexModel([("filename", ASCENDING), ("uploadDate", ASCENDING)], name="filename_1_uploadDate_1")]
CHUNKS_INDEXES = [IndexModel([("files_id", ASCENDING), ("n", ASCENDING)], unique=True, name="files_id_1_n_1")]
KEY_PATTERN = re.compile(r"^[0-9a-f]{32}$")
CACHE_PREFIX = "media:"
NAME_MAX_LENGTH = 200


# On a sharded cluster, `media.chunks` (what grows) is sharded on its files' ids, hashed
# (the one kind of key both MongoDB and DocumentDB accept): every chunk of one rendition
# is on one shard, read by one targeted query, and `files_id` leads GridFS's unique
# `{files_id, n}` index, so it stays unique across shards. The small `media.files` and
# `media_images` stay on the primary shard.
SHARD_KEYS = (ShardKey(collection=f"{BUCKET}.chunks", key={"files_id": "hashed"}, indexes=tuple(CHUNKS_INDEXES)),)


def shard_keys() -> tuple[ShardKey, ...]:
    return SHARD_KEYS


def ensure_indexes(db: Database) -> list[str]:
    return (
        db.media_images.create_indexes(INDEXES)
        + db.media_pending.create_indexes(PENDING_INDEXES)
        + db[f"{BUCKET}.files"].create_indexes(FILES_INDEXES)
        + db[f"{BUCKET}.chunks"].create_indexes(CHUNKS_INDEXES)
    )


def _bucket() -> gridfs.GridFSBucket:
    return gridfs.GridFSBucket(get_db(), bucket_name=BUCKET)


@dataclass(frozen=True)
class StoredRendition:
    width: int
    height: int
    ext: str
    bytes: int

    @property
    def content_type(self) -> str:
        return CONTENT_TYPES[self.ext]


@dataclass(frozen=True)
class Image:
    id: ObjectId
    key: str
    name: str
    alt: str
    decorative: bool
    caption: str
    width: int
    height: int
    fallback: str
    renditions: tuple[StoredRendition, ...]
    uploaded: datetime
    uploaded_by: str
    kind: str = ""  # "member": a member's picture (media/avatars.py), not the library's

    @classmethod
    def from_doc(cls, doc: dict) -> Image:
        return cls(
            id=doc["_id"], key=doc["key"], name=doc["name"], alt=doc["alt"],
            decorative=bool(doc.get("decorative")), caption=doc.get("caption", ""),
            width=doc["width"], height=doc["height"], fallback=doc["fallback"],
            renditions=tuple(
                StoredRendition(width=r["width"], height=r["height"], ext=r["ext"], bytes=r["bytes"])
                for r in doc["renditions"]
            ),
            uploaded=doc["uploaded"], uploaded_by=doc.get("uploaded_by", ""), kind=doc.get("kind", ""),
        )

    def in_format(self, ext: str) -> list[StoredRendition]:
        """Its renditions in one format, narrowest first."""
        return [r for r in self.renditions if r.ext == ext]

    def rendition(self, *, ext: str, at_least: int) -> StoredRendition:
        """The narrowest rendition in `ext` at least `at_least` wide (else the widest)."""
        choices = self.in_format(ext)
        return next((r for r in choices if r.width >= at_least), choices[-1])


def file_name(key: str, width: int, ext: str) -> str:
    return f"{key}/{width}.{ext}"


class AlreadyStored(Exception):
    """An image with the same content is in the library already."""

    def __init__(self, image: Image):
        super().__init__(image.key)
        self.image = image


def add_image(*, processed: Processed, name: str, alt: str, decorative: bool, caption: str,
              uploaded_by: str, kind: str = "") -> Image:
    """Store an image's renditions, then its document; AlreadyStored when its content
    is in the library. On any failure, the files written so far are deleted (or, if
    the database is gone, left to `clean_interrupted`)."""
    existing = get_by_key(processed.key)
    if existing is not None:
        raise AlreadyStored(existing)
    clean_interrupted()
    bucket = _bucket()
    file_ids = [ObjectId() for _ in processed.renditions]
    pending = _pending(processed.key, file_ids)
    try:
        renditions = []
        for file_id, rendition in zip(file_ids, processed.renditions):
            bucket.upload_from_stream_with_id(
                file_id, file_name(processed.key, rendition.width, rendition.ext), rendition.data,
                metadata={"key": processed.key, "contentType": rendition.content_type},
            )
            renditions.append({"width": rendition.width, "height": rendition.height, "ext": rendition.ext,
                               "bytes": len(rendition.data), "file_id": file_id})
        doc = {
            "key": processed.key, "name": name[:NAME_MAX_LENGTH], "alt": alt, "decorative": decorative,
            "caption": caption, "width": processed.width, "height": processed.height,
            "fallback": processed.fallback, "renditions": renditions,
            "uploaded": _now(), "uploaded_by": uploaded_by,
        }
        if kind:
            doc["kind"] = kind
        doc["_id"] = get_db().media_images.insert_one(doc).inserted_id
    except BaseException as exc:
        _settle(bucket, pending, file_ids)
        if isinstance(exc, DuplicateKeyError):
            raced = get_by_key(processed.key)
            if raced is not None:
                raise AlreadyStored(raced) from None
        raise
    _settle(bucket, pending, [])
    return Image.from_doc(doc)


def _pending(key: str, file_ids: list[ObjectId]) -> ObjectId:
    """Record that the files `file_ids` of `key` may soon be named by no image."""
    return get_db().media_pending.insert_one({"key": key, "files": file_ids, "since": _now()}).inserted_id


def _settle(bucket: gridfs.GridFSBucket, pending: ObjectId, unwanted: list[ObjectId]) -> None:
    """Delete the files `unwanted`, then the record `pending`; with the database gone,
    the record stays for `clean_interrupted`."""
    try:
        _delete_files(bucket, unwanted)
        get_db().media_pending.delete_one({"_id": pending})
    except PyMongoError:
        pass


def clean_interrupted(*, older_than: timedelta | None = None, limit: int = 20) -> int:
    """Finish what uploads and deletions interrupted more than `older_than` ago
    (MEDIA_PENDING_SECONDS) left, up to `limit` of them: delete the files their
    record names that no image document holds, then the record. How many records
    were finished."""
    if older_than is None:
        older_than = timedelta(seconds=settings.MEDIA_PENDING_SECONDS)
    db, bucket, finished = get_db(), _bucket(), 0
    interrupted = db.media_pending.find({"since": {"$lte": _now() - older_than}})
    for record in interrupted.sort("since", ASCENDING).limit(limit):
        image = db.media_images.find_one({"key": record["key"]}, {"renditions.file_id": True})
        kept = {rendition["file_id"] for rendition in image["renditions"]} if image else set()
        _delete_files(bucket, [file_id for file_id in record["files"] if file_id not in kept])
        db.media_pending.delete_one({"_id": record["_id"]})
        finished += 1
    return finished


def _delete_files(bucket: gridfs.GridFSBucket, file_ids: Iterable[ObjectId]) -> None:
    """Delete each file, its chunks included (also those of a file whose writing
    stopped before its `media.files` document)."""
    for file_id in file_ids:
        try:
            bucket.delete(file_id)
        except gridfs.errors.NoFile:
            pass


def _now() -> datetime:
    moment = datetime.now(timezone.utc)
    return moment.replace(microsecond=moment.microsecond // 1000 * 1000)


def get_by_key(key: str) -> Image | None:
    if not isinstance(key, str) or not KEY_PATTERN.match(key):
        return None
    doc = get_db().media_images.find_one({"key": key})
    return Image.from_doc(doc) if doc else None


def find_by_keys(keys: Iterable[str]) -> dict[str, Image]:
    wanted = [key for key in set(keys) if isinstance(key, str) and KEY_PATTERN.match(key)]
    if not wanted:
        return {}
    return {doc["key"]: Image.from_doc(doc) for doc in get_db().media_images.find({"key": {"$in": wanted}})}


def _search(text: str) -> dict:
    """Library images (not members' pictures) whose name or alt text contains `text`,
    literally and ignoring case (escaped: a typed ".*" is two characters, never a pattern)."""
    if not text:
        return {"kind": None}
    literal = {"$regex": re.escape(str(text)), "$options": "i"}
    return {"kind": None, "$or": [{"name": literal}, {"alt": literal}]}


def find_images(*, text: str = "", skip: int = 0, limit: int) -> list[Image]:
    """Newest first, filtered by `text` in name or alt text."""
    cursor = get_db().media_images.find(_search(text)).sort([("uploaded", DESCENDING), ("_id", DESCENDING)])
    return [Image.from_doc(doc) for doc in cursor.skip(skip).limit(limit)]


def count_images(*, text: str = "") -> int:
    return get_db().media_images.count_documents(_search(text))


def update_text(*, key: str, alt: str, decorative: bool, caption: str) -> bool:
    """Change an image's alt text, decorative mark and caption; whether it exists."""
    result = get_db().media_images.update_one(
        {"key": str(key)}, {"$set": {"alt": alt, "decorative": decorative, "caption": caption}}
    )
    return result.matched_count == 1


def delete_image(*, key: str) -> bool:
    """Delete the image's document, then its files; whether there was one."""
    db = get_db()
    doc = db.media_images.find_one({"key": str(key)})
    if doc is None:
        return False
    file_ids = [rendition["file_id"] for rendition in doc["renditions"]]
    pending = _pending(doc["key"], file_ids)
    if not db.media_images.delete_one({"_id": doc["_id"]}).deleted_count:
        _settle(_bucket(), pending, [])
        return False
    _delete_files(_bucket(), file_ids)
    cache.delete_many([_cache_key(file_name(doc["key"], r["width"], r["ext"])) for r in doc["renditions"]])
    _settle(_bucket(), pending, [])
    return True


@dataclass(frozen=True)
class ServedFile:
    data: bytes
    content_type: str


def _cache_key(name: str) -> str:
    return CACHE_PREFIX + name


def read_rendition(*, key: str, width: int, ext: str) -> ServedFile | None:
    """A rendition's bytes, or None when no image document names such a file (files
    no image names, left by an interrupted upload, are never served). Renditions
    never change under their name, so one read is kept in Django's cache for
    MEDIA_CACHE_SECONDS (up to MEDIA_CACHE_MAX_BYTES each): a warm rendition costs no
    database query."""
    if ext not in CONTENT_TYPES or not KEY_PATTERN.match(key):
        return None
    name = file_name(key, width, ext)
    data = cache.get(_cache_key(name))
    if data is None:
        doc = get_db().media_images.find_one({"key": key}, {"renditions": True})
        file_id = next((r["file_id"] for r in (doc or {}).get("renditions", ())
                        if r["width"] == width and r["ext"] == ext), None)
        if file_id is None:
            return None
        try:
            stream = _bucket().open_download_stream(file_id)
        except gridfs.errors.NoFile:
            return None
        with stream:
            data = stream.read()
        if len(data) <= settings.MEDIA_CACHE_MAX_BYTES:
            cache.set(_cache_key(name), data, settings.MEDIA_CACHE_SECONDS)
    return ServedFile(data=data, content_type=CONTENT_TYPES[ext])
