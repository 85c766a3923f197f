"""The media library: pictures editors upload, kept in MongoDB (GridFS) as
metadata-free renditions at a few widths, served under /media/. It imports only
the platform (infra); the blog and the dashboard use it, the comments app does not."""
