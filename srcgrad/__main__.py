"""``python -m srcgrad ...`` is the ``srcgrad`` command."""
import sys

from .cli import main

sys.exit(main())
