"""The editors' dashboard: posts, versions, profiles and renames (login required)."""
