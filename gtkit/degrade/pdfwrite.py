"""A tiny deterministic writer of image-only PDFs: one full-page image per page, no text layer.

Written by hand rather than through a PDF library so that the bytes depend on nothing but the page
sizes and the encoded images: no timestamps, no random /ID, no producer string, and no re-compression.
A PNG's IDAT stream already is a zlib stream with per-row PNG predictors, so it goes into the PDF as
`/FlateDecode` with `/DecodeParms << /Predictor 15 ... >>` unchanged; a JPEG goes in as `/DCTDecode`.
Pages are streamed to the file as they come, so memory stays flat on long documents.
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path
from typing import BinaryIO


def _num(x: float) -> str:
    """A PDF real: fixed notation, at most 4 decimals, no trailing zeros."""
    s = f"{float(x):.4f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


def png_stream(png: bytes) -> tuple[int, int, int, int, bytes]:
    """(width, height, bits per component, colors, IDAT zlib data) of a non-interlaced gray or RGB PNG."""
    if png[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat = 8, []
    width = height = bits = colors = 0
    while pos < len(png):
        (length,) = struct.unpack(">I", png[pos : pos + 4])
        kind = png[pos + 4 : pos + 8]
        data = png[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            width, height, bits, ctype, _comp, _filt, interlace = struct.unpack(">IIBBBBB", data)
            if interlace or ctype not in (0, 2):
                raise ValueError(f"unsupported PNG (color type {ctype}, interlace {interlace})")
            colors = 1 if ctype == 0 else 3
        elif kind == b"IDAT":
            idat.append(data)
        elif kind == b"IEND":
            break
        pos += 12 + length
    return width, height, bits, colors, b"".join(idat)


def jpeg_size(jpeg: bytes) -> tuple[int, int, int]:
    """(width, height, components) from a JPEG's SOF marker."""
    pos = 2
    while pos < len(jpeg):
        if jpeg[pos] != 0xFF:
            raise ValueError("malformed JPEG")
        marker = jpeg[pos + 1]
        (length,) = struct.unpack(">H", jpeg[pos + 2 : pos + 4])
        if marker in (0xC0, 0xC1, 0xC2):
            height, width = struct.unpack(">HH", jpeg[pos + 5 : pos + 9])
            return width, height, jpeg[pos + 9]
        pos += 2 + length
    raise ValueError("JPEG without a frame header")


class ImagePdfWriter:
    """Write pages in order with `add_page`, then `close`; objects 1 and 2 are the catalog and page tree."""

    def __init__(self, path: Path):
        self._f: BinaryIO = open(path, "wb")  # noqa: SIM115  # closed in close()
        self._offsets: dict[int, int] = {}
        self._next = 3
        self._pages: list[int] = []
        self._f.write(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")

    def _obj(self, num: int, body: bytes, stream: bytes | None = None) -> None:
        self._offsets[num] = self._f.tell()
        self._f.write(f"{num} 0 obj\n".encode())
        self._f.write(body)
        if stream is not None:
            self._f.write(b"\nstream\n")
            self._f.write(stream)
            self._f.write(b"\nendstream")
        self._f.write(b"\nendobj\n")

    def _new(self) -> int:
        n = self._next
        self._next += 1
        return n

    def add_page(self, width: float, height: float, kind: str, data: bytes) -> None:
        """A page of `width` x `height` points covered by one image (`kind` 'png' or 'jpeg')."""
        if kind == "png":
            w, h, bits, colors, idat = png_stream(data)
            cs = "/DeviceGray" if colors == 1 else "/DeviceRGB"
            head = (f"<< /Type /XObject /Subtype /Image /Width {w} /Height {h} /ColorSpace {cs} "
                    f"/BitsPerComponent {bits} /Filter /FlateDecode /DecodeParms << /Predictor 15 /Colors {colors} "
                    f"/BitsPerComponent {bits} /Columns {w} >> /Length {len(idat)} >>")
            payload = idat
        elif kind == "jpeg":
            w, h, comps = jpeg_size(data)
            cs = {1: "/DeviceGray", 3: "/DeviceRGB"}[comps]
            head = (f"<< /Type /XObject /Subtype /Image /Width {w} /Height {h} /ColorSpace {cs} "
                    f"/BitsPerComponent 8 /Filter /DCTDecode /Length {len(data)} >>")
            payload = data
        else:
            raise ValueError(f"unknown image kind {kind!r}")
        img = self._new()
        self._obj(img, head.encode(), payload)
        content = zlib.compress(f"q {_num(width)} 0 0 {_num(height)} 0 0 cm /Im0 Do Q".encode(), 9)
        cnt = self._new()
        self._obj(cnt, f"<< /Filter /FlateDecode /Length {len(content)} >>".encode(), content)
        page = self._new()
        self._obj(page, (f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {_num(width)} {_num(height)}] "
                         f"/Resources << /XObject << /Im0 {img} 0 R >> >> /Contents {cnt} 0 R >>").encode())
        self._pages.append(page)

    def close(self) -> None:
        kids = " ".join(f"{p} 0 R" for p in self._pages)
        self._obj(2, f"<< /Type /Pages /Kids [{kids}] /Count {len(self._pages)} >>".encode())
        self._obj(1, b"<< /Type /Catalog /Pages 2 0 R >>")
        xref = self._f.tell()
        lines = [f"xref\n0 {self._next}\n", "0000000000 65535 f \n"]
        lines += [f"{self._offsets[n]:010d} 00000 n \n" for n in range(1, self._next)]
        lines.append(f"trailer\n<< /Size {self._next} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n")
        self._f.write("".join(lines).encode())
        self._f.close()
