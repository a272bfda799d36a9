"""The shared format: `models` (the pydantic models of gt.json and dataset.jsonl), `bundle` (reading bundles and
datasets), `writer` (the one bundle and dataset writer), `decode` (the fast, strict msgspec reader of field
entries), `flat` (field entries flattened for the checks) and `schema_export` (the generated JSON Schemas).

The package re-exports nothing: import a name from the module that defines it.
"""
