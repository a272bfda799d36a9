"""Regenerate the shipped JSON Schemas of the format from the pydantic models."""

from gtkit.files.write import write_bytes_atomic
from gtkit.format.schema_export import rendered

for path, text in rendered().items():
    write_bytes_atomic(path, text.encode("utf-8"), force=True)
    print(f"wrote {path}")
