"""`python -m mcucomp`: the same command line as the `mcucomp` script."""

import sys

from .cli import main

sys.exit(main())
