"""From a validated config to result files: validation, the resumable cell driver, seeding,
chunks, workers, the Python door ``search_batch``, Dask, and reading results (each search
once)."""
