"""Run the command line: ``python -m ordmetrics``."""

import sys

from .cli import main

sys.exit(main())
