"""`gtkit build`: a dataset from a plan (synth, degrade and consensus tasks), resumable, on the local worker
pool or a Dask cluster. It orchestrates the pipelines, so it sits above them and below the CLI."""

from gtkit.builder.plan import BuildPlan, read_plan
from gtkit.builder.run import BuildReport, build

__all__ = ["BuildPlan", "BuildReport", "build", "read_plan"]
