"""`python -m companion_memory ...`: the command line, as the `companion-memory` script."""

import sys

from companion_memory.device.cli import main

sys.exit(main())
