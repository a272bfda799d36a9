"""Files, the bottom layer: `read` (what a user hands gtkit, read carefully), `write` (atomic writes and
whole-line appends) and `outputs` (a command's output claimed, checked, staged and committed). The package
re-exports nothing."""
