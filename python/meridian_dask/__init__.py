"""meridian-dask: `meridian buffer` on a Dask cluster, with the same answer as one machine (docs/cluster.md)."""

__version__ = "0.1.0"
