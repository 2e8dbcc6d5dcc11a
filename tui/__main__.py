"""`python -m tui` runs the `noema` command line."""

import sys

from tui.cli import main

sys.exit(main())
