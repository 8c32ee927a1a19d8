"""`python -m meridian_dask buffer ...`."""
import sys

from .cli import main

sys.exit(main())
