"""Writes a KML of at least SIZE bytes by repeating the placemarks of a smaller KML: make_large_kml.py SMALL OUT [SIZE]"""
import sys

small, out = sys.argv[1], sys.argv[2]
size = int(sys.argv[3]) if len(sys.argv) > 3 else 1 << 30
text = open(small, "rb").read()
start, end = text.index(b"<Placemark"), text.rindex(b"</Document>")
head, body, tail = text[:start], text[start:end], text[end:]
written = 0
with open(out, "wb") as f:
    f.write(head)
    written += len(head)
    while written + len(tail) < size:
        f.write(body)
        written += len(body)
    f.write(tail)
