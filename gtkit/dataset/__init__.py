"""Dataset-level tools above the format: the dataset card, exports (ExtractBench, parquet) and the
ExtractBench import. They read bundles through `gtkit.format` and write bundles only through its writer."""
