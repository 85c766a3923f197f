"""The formats renditions are stored in, by file extension, and their Content-Types."""

CONTENT_TYPES = {"webp": "image/webp", "jpg": "image/jpeg", "png": "image/png"}
