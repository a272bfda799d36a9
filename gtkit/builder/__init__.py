"""`gtkit build`: a dataset from a plan (synth, degrade and consensus tasks), resumable, on the local worker
pool or a Dask cluster. It orchestrates the pipelines, so it sits above them and below the CLI.

The package re-exports nothing: import a name from the module that defines it.
"""
