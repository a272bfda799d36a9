"""The shared format: pydantic models, atomic read/write, bundles and the dataset index."""

from gtkit.format.bundle import (
    GT_NAME,
    INDEX_NAME,
    PDF_NAME,
    SCHEMA_NAME,
    Bundle,
    gt_bytes,
    index_bytes,
    index_entry,
    is_dataset,
    iter_bundle_dirs,
    parse_ground_truth,
    read_bundle,
    read_bundles,
    read_index,
    write_bundle,
    write_bundle_files,
)
from gtkit.format.models import (
    FORMAT_VERSION,
    LENIENCIES,
    DatasetEntry,
    DocumentInfo,
    Evidence,
    FieldEntry,
    GroundTruth,
    ParentRef,
    Provenance,
    Reading,
    SchemaInfo,
    Tags,
    length_tag,
)

__all__ = [
    "FORMAT_VERSION", "LENIENCIES", "GT_NAME", "INDEX_NAME", "PDF_NAME", "SCHEMA_NAME",
    "Bundle", "DatasetEntry", "DocumentInfo", "Evidence", "FieldEntry", "GroundTruth", "ParentRef",
    "Provenance", "Reading", "SchemaInfo", "Tags", "gt_bytes", "index_bytes", "index_entry", "is_dataset",
    "iter_bundle_dirs", "length_tag", "parse_ground_truth", "read_bundle", "read_bundles", "read_index",
    "write_bundle", "write_bundle_files",
]
