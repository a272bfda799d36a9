"""The shared format: pydantic models, the one bundle and dataset writer, reading bundles and datasets."""

from gtkit.format.bundle import (
    Bundle,
    is_dataset,
    iter_bundle_dirs,
    parse_ground_truth,
    read_bundle,
    read_bundles,
    read_index,
)
from gtkit.format.models import (
    FORMAT_VERSION,
    LENIENCIES,
    READABLE_VERSIONS,
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
from gtkit.format.writer import (
    GT_NAME,
    INDEX_NAME,
    PDF_NAME,
    SCHEMA_NAME,
    BundleWriter,
    DatasetWriter,
    Envelope,
    evidence_entry,
    field_entry,
    gt_bytes,
    index_entry,
    is_gtkit_output,
    write_bundle,
    write_bundle_output,
    write_dataset,
)

__all__ = [
    "FORMAT_VERSION", "GT_NAME", "INDEX_NAME", "LENIENCIES", "PDF_NAME", "READABLE_VERSIONS", "SCHEMA_NAME",
    "Bundle", "BundleWriter", "DatasetEntry", "DatasetWriter", "DocumentInfo", "Envelope", "Evidence", "FieldEntry",
    "GroundTruth", "ParentRef", "Provenance", "Reading", "SchemaInfo", "Tags", "evidence_entry", "field_entry",
    "gt_bytes", "index_entry", "is_dataset", "is_gtkit_output", "iter_bundle_dirs", "length_tag",
    "parse_ground_truth", "read_bundle", "read_bundles", "read_index", "write_bundle", "write_bundle_output",
    "write_dataset",
]
