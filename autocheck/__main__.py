"""``python -m autocheck``: the same command line as the ``autocheck`` script."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
