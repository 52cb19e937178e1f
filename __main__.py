"""`python -m npxla ...` runs the `npxla` command line."""
import sys

from .runtime.driver.cli import main

if __name__ == "__main__":
    sys.exit(main())
