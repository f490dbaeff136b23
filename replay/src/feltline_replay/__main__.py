"""``python -m feltline_replay``: the ``feltline-replay`` command."""

import sys

from feltline_replay.cli import main

sys.exit(main())
