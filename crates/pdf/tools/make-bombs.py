#!/usr/bin/env python3
"""Hostile PDFs for measuring the reader's memory bound (docs/pdf.md, "Limits").

    python3 crates/pdf/tools/make-bombs.py DIR [GIB]

writes into DIR (GIB: how far the Flate bombs inflate, default 4):

- content.pdf    a page whose content stream (Flate, best compression) inflates to GIB GiB
- content-fast.pdf  the same with zlib's "fastest" header, which `pdf encrypt` tries to
                 recompress (it decodes such streams first)
- objstm.pdf     the page tree in an object stream that inflates to GIB GiB
- xrefstm.pdf    a cross-reference stream that inflates to GIB GiB
- length.pdf     a content stream with /Length 10^15
- n.pdf          an object stream claiming /N 4,000,000,000 objects
- deep.pdf       a catalog holding 1,000,000 nested arrays
- deep-objstm.pdf  the same nesting inside an object stream

Every file is a few MB at most. Nothing here is cipherlab's code: plain zlib.
"""
import os
import sys
import zlib

CHUNK = 1 << 24


def zeros_deflated(total, level=9, prefix=b""):
    """zlib data of `prefix` followed by zeros, `total` bytes in all, made in chunks."""
    c = zlib.compressobj(level)
    out = [c.compress(prefix)]
    left = total - len(prefix)
    block = bytes(CHUNK)
    while left > 0:
        n = min(left, CHUNK)
        out.append(c.compress(block[:n]))
        left -= n
    out.append(c.flush())
    return b"".join(out)


def classic(objs, root=1):
    """A file with a classic cross-reference table: objs is a list of (num, body bytes)."""
    f = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offs = {}
    for num, body in objs:
        offs[num] = len(f)
        f += b"%d 0 obj\n" % num + body + b"\nendobj\n"
    x = len(f)
    size = max(offs) + 1
    f += b"xref\n0 %d\n0000000000 65535 f \n" % size
    for n in range(1, size):
        if n in offs:
            f += b"%010d 00000 n \n" % offs[n]
        else:
            f += b"0000000000 65535 f \n"
    f += b"trailer\n<</Size %d/Root %d 0 R>>\nstartxref\n%d\n%%%%EOF\n" % (size, root, x)
    return bytes(f)


def with_xref_stream(objs, compressed, root=1):
    """A file whose cross-reference stream (uncompressed) lists objs at their offsets and
    `compressed` ({num: (container, index)}) in object streams."""
    f = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offs = {}
    for num, body in objs:
        offs[num] = len(f)
        f += b"%d 0 obj\n" % num + body + b"\nendobj\n"
    xnum = max(list(offs) + list(compressed)) + 1
    offs[xnum] = len(f)
    rows = bytearray(b"\x00\x00\x00\x00\x00\xff\xff")
    for n in range(1, xnum + 1):
        if n in offs:
            rows += b"\x01" + offs[n].to_bytes(4, "big") + b"\x00\x00"
        elif n in compressed:
            c, i = compressed[n]
            rows += b"\x02" + c.to_bytes(4, "big") + i.to_bytes(2, "big")
        else:
            rows += b"\x00" * 7
    f += (
        b"%d 0 obj\n<</Type/XRef/Size %d/W[1 4 2]/Root %d 0 R/Length %d>>\nstream\n"
        % (xnum, xnum + 1, root, len(rows))
    )
    f += rows + b"\nendstream\nendobj\n"
    f += b"startxref\n%d\n%%%%EOF\n" % offs[xnum]
    return bytes(f)


CATALOG = b"<</Type/Catalog/Pages 2 0 R>>"
PAGES = b"<</Type/Pages/Kids[3 0 R]/Count 1>>"
PAGE = b"<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Contents 4 0 R>>"


def stream(dict_entries, data):
    return b"<<%s/Length %d>>\nstream\n" % (dict_entries, len(data)) + data + b"\nendstream"


def main():
    out = sys.argv[1]
    gib = int(sys.argv[2]) if len(sys.argv) > 2 else 4
    total = gib << 30
    os.makedirs(out, exist_ok=True)

    def write(name, data):
        with open(os.path.join(out, name), "wb") as fh:
            fh.write(data)
        print(f"{name}: {len(data):,} bytes")

    big = zeros_deflated(total)
    write("content.pdf", classic(
        [(1, CATALOG), (2, PAGES), (3, PAGE), (4, stream(b"/Filter/FlateDecode", big))]))
    fast = zeros_deflated(total, level=1)
    write("content-fast.pdf", classic(
        [(1, CATALOG), (2, PAGES), (3, PAGE), (4, stream(b"/Filter/FlateDecode", fast))]))
    del fast
    # Object stream 5 holds objects 2 (the page tree), then zeros to `total` bytes.
    head = b"2 0 "
    body = PAGES + b" "
    objstm = zeros_deflated(total, prefix=head + body)
    write("objstm.pdf", with_xref_stream(
        [(1, CATALOG), (3, PAGE), (4, stream(b"", b"BT ET")),
         (5, stream(b"/Type/ObjStm/N 1/First %d/Filter/FlateDecode" % len(head), objstm))],
        {2: (5, 0)}))
    del objstm
    # A cross-reference stream of `total` bytes of rows.
    f = bytearray(b"%PDF-1.7\n")
    f += b"1 0 obj\n" + CATALOG + b"\nendobj\n2 0 obj\n<</Type/Pages/Kids[]/Count 0>>\nendobj\n"
    x = len(f)
    f += b"3 0 obj\n<</Type/XRef/Size 4/W[1 4 2]/Root 1 0 R/Filter/FlateDecode/Length %d>>\nstream\n" % len(big)
    f += big + b"\nendstream\nendobj\nstartxref\n%d\n%%%%EOF\n" % x
    write("xrefstm.pdf", bytes(f))
    del big, f
    content = b"BT /F1 12 Tf 72 700 Td (hello) Tj ET"
    write("length.pdf", classic(
        [(1, CATALOG), (2, PAGES), (3, PAGE),
         (4, b"<</Length 1000000000000000>>\nstream\n" + content + b"\nendstream")]))
    head = b"2 0 "
    write("n.pdf", with_xref_stream(
        [(1, CATALOG), (3, PAGE), (4, stream(b"", content)),
         (5, stream(b"/Type/ObjStm/N 4000000000/First %d" % len(head), head + PAGES))],
        {2: (5, 0)}))
    depth = 1_000_000
    nested = b"[" * depth + b"]" * depth
    write("deep.pdf", classic(
        [(1, b"<</Type/Catalog/Pages 2 0 R/X " + nested + b">>"), (2, PAGES), (3, PAGE),
         (4, stream(b"", content))]))
    body = b"<</Type/Pages/Kids[3 0 R]/Count 1/X " + nested + b">> "
    write("deep-objstm.pdf", with_xref_stream(
        [(1, CATALOG), (3, PAGE), (4, stream(b"", content)),
         (5, stream(b"/Type/ObjStm/N 1/First %d/Filter/FlateDecode" % len(head),
                    zlib.compress(head + body, 9)))],
        {2: (5, 0)}))


if __name__ == "__main__":
    main()
