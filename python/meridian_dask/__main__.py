"""`python -m meridian_dask buffer ...`."""
import sys

from .cli import main

if __name__ == "__main__":  # worker processes started by spawn import this module again
    sys.exit(main())
