"""Page images rendered on demand by PyMuPDF and kept in a small least-recently-used cache."""

from __future__ import annotations

import threading
from collections import OrderedDict
from pathlib import Path

from gtkit.pdf import open_pdf


class PageImages:
    """PNG bytes of (pdf, page) renderings; at most `capacity` kept, the least recently used dropped first."""

    def __init__(self, *, dpi: int = 100, capacity: int = 48):
        self.dpi = dpi
        self.capacity = capacity
        self._cache: OrderedDict[tuple[Path, int], bytes] = OrderedDict()
        self._lock = threading.Lock()   # MuPDF is not to be used from two threads at once

    def png(self, pdf: Path, page: int) -> bytes:
        """Page `page` (1-based) of `pdf` as PNG bytes; IndexError when the document has no such page."""
        key = (pdf, page)
        with self._lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                return self._cache[key]
            with open_pdf(pdf) as doc:
                if not 1 <= page <= doc.page_count:
                    raise IndexError(page)
                data = doc[page - 1].get_pixmap(dpi=self.dpi).tobytes("png")
            self._cache[key] = data
            if len(self._cache) > self.capacity:
                self._cache.popitem(last=False)
            return data
