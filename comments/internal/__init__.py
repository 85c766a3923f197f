"""What hosts must not import: the app's own plumbing, which may change without notice."""
