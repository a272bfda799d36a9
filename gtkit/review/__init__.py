"""`gtkit review`: settle a consensus output's queue (and draw its missing boxes), or confirm and correct every
cell of any other dataset or bundle, in a local browser page.

items: what is reviewed (queue.jsonl, draw.jsonl); detail: one item as the page shows it; store: the
decisions file, appended and fsynced, each line checked by adjudication's own code; pages: page
images; state: the review as a whole; app: the Starlette application and its token gate; serve:
the server on 127.0.0.1. The page itself is static/ (plain HTML, CSS and JavaScript).
"""
