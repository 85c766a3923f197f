"""gunicorn for the test provider (not Slugline's gunicorn.conf.py): one worker with a
few threads on the loopback port the harness chose."""

import os

bind = os.environ["OIDC_PROVIDER_BIND"]
workers = 1
threads = 4
timeout = 30
errorlog = "-"
loglevel = "warning"
