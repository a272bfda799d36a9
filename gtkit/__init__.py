"""gtkit: ground truth for schema-guided document-extraction benchmarks."""

__version__ = "0.1.0"
