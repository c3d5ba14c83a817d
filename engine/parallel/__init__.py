"""Where work units run: in this process, on local Dask workers or on a remote scheduler
(cluster.py).  Knows nothing of Go, so any layer may hand it work."""
