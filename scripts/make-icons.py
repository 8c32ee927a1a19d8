#!/usr/bin/env python3
"""Draws the viewer's seven point icons (the choices of the "Create and save KML" sample) as 64x64 PNGs into
Sources/MeridianViewer/Site/icons/. The shapes are the project's own: simple polygons rasterised here with 4x4
supersampling; only the Python standard library is used (zlib + struct for PNG).

Run: python3 scripts/make-icons.py   (deterministic: the same bytes every run)
"""
import math
import pathlib
import struct
import zlib

OUT = pathlib.Path(__file__).resolve().parents[1] / "Sources" / "MeridianViewer" / "Site" / "icons"
SIZE = 64
SAMPLES = 4
BLUE = (30, 100, 220)
NAVY = (12, 42, 100)
WHITE = (255, 255, 255)
GREY = (70, 70, 70)


def circle(cx, cy, r, n=72):
    return [(cx + r * math.cos(2 * math.pi * i / n), cy + r * math.sin(2 * math.pi * i / n)) for i in range(n)]


def star(cx, cy, outer, inner):
    pts = []
    for i in range(10):
        a = -math.pi / 2 + i * math.pi / 5
        r = outer if i % 2 == 0 else inner
        pts.append((cx + r * math.cos(a), cy + r * math.sin(a)))
    return pts


def round_pin(cx, top, r, tip):
    # A circle of radius r centred at (cx, top + r) whose tangents meet at (cx, tip).
    cy = top + r
    d = tip - cy
    half = math.acos(r / d)  # angle between the downward axis and each tangent point
    pts = []
    start = math.pi / 2 + half
    end = math.pi / 2 - half + 2 * math.pi
    n = 64
    for i in range(n + 1):
        a = start + (end - start) * i / n
        pts.append((cx + r * math.cos(a), cy + r * math.sin(a)))
    pts.append((cx, tip))
    return pts


def square_pin(cx, top, half, tip):
    bottom = top + 2 * half
    return [(cx - half, top), (cx + half, top), (cx + half, bottom), (cx + 7, bottom), (cx, tip), (cx - 7, bottom),
            (cx - half, bottom)]


def scaled(poly, factor, center):
    cx, cy = center
    return [(cx + (x - cx) * factor, cy + (y - cy) * factor) for x, y in poly]


def inside(poly, x, y):
    result = False
    j = len(poly) - 1
    for i in range(len(poly)):
        xi, yi = poly[i]
        xj, yj = poly[j]
        if (yi > y) != (yj > y) and x < (xj - xi) * (y - yi) / (yj - yi) + xi:
            result = not result
        j = i
    return result


def render(layers):
    """layers: [(polygon, rgb)], painted in order. Returns RGBA rows."""
    rows = []
    for py in range(SIZE):
        row = bytearray()
        for px in range(SIZE):
            acc = [0.0, 0.0, 0.0, 0.0]
            for sy in range(SAMPLES):
                for sx in range(SAMPLES):
                    x = px + (sx + 0.5) / SAMPLES
                    y = py + (sy + 0.5) / SAMPLES
                    color = None
                    for poly, rgb in layers:
                        if inside(poly, x, y):
                            color = rgb
                    if color:
                        acc[0] += color[0]
                        acc[1] += color[1]
                        acc[2] += color[2]
                        acc[3] += 1
            n = SAMPLES * SAMPLES
            if acc[3] == 0:
                row += bytes((0, 0, 0, 0))
            else:
                row += bytes((round(acc[0] / acc[3]), round(acc[1] / acc[3]), round(acc[2] / acc[3]), round(255 * acc[3] / n)))
        rows.append(bytes(row))
    return rows


def png(rows):
    raw = b"".join(b"\x00" + r for r in rows)

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", SIZE, SIZE, 8, 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")


def outlined(poly, center, fill, border=NAVY, factor=0.86):
    return [(poly, border), (scaled(poly, factor, center), fill)]


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    c = (32, 32)
    icons = {
        # "No style": a neutral white marker with a dark ring and centre dot.
        "no-style.png": [(circle(32, 32, 20), GREY), (circle(32, 32, 16), WHITE), (circle(32, 32, 5), GREY)],
        "star.png": outlined(star(32, 34, 29, 12), (32, 34), BLUE, factor=0.84),
        "diamond.png": outlined([(32, 4), (58, 32), (32, 60), (6, 32)], c, BLUE),
        "circle.png": outlined(circle(32, 32, 26), c, BLUE),
        "square.png": outlined([(9, 9), (55, 9), (55, 55), (9, 55)], c, BLUE),
        "round-pin.png": outlined(round_pin(32, 3, 19, 62), (32, 24), BLUE, factor=0.88)
        + [(circle(32, 22, 7), WHITE)],
        "square-pin.png": outlined(square_pin(32, 3, 20, 62), (32, 25), BLUE, factor=0.88)
        + [([(25, 16), (39, 16), (39, 30), (25, 30)], WHITE)],
    }
    for name, layers in icons.items():
        (OUT / name).write_bytes(png(render(layers)))
        print(f"icons/{name}")


if __name__ == "__main__":
    main()
