"""`python -m npxla ...` runs the `npxla` command line."""
import sys

from .transpiler.cli import main

if __name__ == "__main__":
    sys.exit(main())
