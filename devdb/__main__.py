"""`python -m devdb start|stop|status|build|run -- CMD` and `python -m devdb cluster …`
(devdb/commands.py)."""

import sys

from devdb.commands import main

sys.exit(main())
