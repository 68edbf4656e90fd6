"""Run the command line: ``python -m ordmetrics``."""

import sys

from ordmetrics.report.cli import main

sys.exit(main())
