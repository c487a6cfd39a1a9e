#!/usr/bin/env python3
"""Draws wiring.svg, the pegged board's wiring diagram (python3, standard library only).

    python3 docs/draw_wiring.py > docs/wiring.svg

The matrix: eight rank wires (driven by the Arduino, one at a time, low), eight file wires (each
pulled up to 5 V by 10 kOhm and read through one 74HC165), and at each of the 64 crossings a reed
switch in series with a diode (1N4148, cathode towards the rank wire). Four buttons to ground and
the 74HC165's three wires complete it. Keep the drawing and this script together: change the
script, run it, commit both.
"""
import sys

W, H = 1250, 900
OX, OY = 330, 140   # top-left crossing (file a, rank 8)
STEP = 70           # between wires
out = []


def el(s):
    out.append(s)


def text(x, y, s, size=14, anchor="start", weight="normal", color="#000"):
    s = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    el(f'<text x="{x}" y="{y}" font-size="{size}" text-anchor="{anchor}" '
       f'font-weight="{weight}" fill="{color}">{s}</text>')


def line(x1, y1, x2, y2, color="#000", width=2, dash=None):
    d = f' stroke-dasharray="{dash}"' if dash else ""
    el(f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="{color}" stroke-width="{width}"{d}/>')


def rect(x, y, w, h, fill="#fff", stroke="#000"):
    el(f'<rect x="{x}" y="{y}" width="{w}" height="{h}" fill="{fill}" stroke="{stroke}" stroke-width="2"/>')


RANK_PINS = ["D2", "D3", "D4", "D5", "D6", "D7", "A0", "A1"]  # ranks 1..8
FILES = "abcdefgh"
RANK_C, FILE_C = "#b03030", "#2050b0"

el(f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" '
   'font-family="DejaVu Sans, Arial, sans-serif">')
rect(0, 0, W, H, fill="#fff", stroke="#fff")
text(20, 34, "tactus open pegged board: 8x8 reed matrix, one 74HC165, ATmega328P (Arduino Uno/Nano)",
     size=20, weight="bold")
text(20, 58, "Each crossing: reed switch + 1N4148 diode, cathode (bar) to the rank wire. A magnet in "
     "the peg's base closes the switch of its aperture only.", size=14)

# Arduino
rect(20, 110, 150, 640, fill="#e8f0e8")
text(95, 135, "Arduino", 16, "middle", "bold")
text(95, 153, "Uno / Nano", 13, "middle")
# rank wires: rank 8 at top
for i in range(8):
    rank = 8 - i
    y = OY + i * STEP
    pin = RANK_PINS[rank - 1]
    text(160, y + 5, pin, 13, "end")
    line(170, y, OX + 7 * STEP + 40, y, RANK_C, 3)
    text(OX + 7 * STEP + 48, y + 5, f"rank {rank}", 13, color=RANK_C)
# file wires and the crossings
for f in range(8):
    x = OX + f * STEP
    line(x, OY - 40, x, OY + 7 * STEP + 165, FILE_C, 3)
    text(x, OY - 48, FILES[f], 16, "middle", "bold", FILE_C)
    for i in range(8):
        y = OY + i * STEP
        # a small reed (two blades in a glass) and a diode on a diagonal link
        cx, cy = x + 22, y - 22
        line(x, y - 44, cx - 8, cy - 8, "#444", 1.5)
        el(f'<ellipse cx="{cx}" cy="{cy}" rx="11" ry="5" transform="rotate(45 {cx} {cy})" '
           'fill="#eef" stroke="#444" stroke-width="1"/>')
        # diode triangle pointing to the rank wire, bar on the rank side
        dx, dy = x + 38, y - 8
        el(f'<polygon points="{dx - 6},{dy - 8} {dx + 6},{dy - 8} {dx},{dy}" fill="#444"/>')
        line(dx - 6, dy + 1, dx + 6, dy + 1, "#444", 2)
        line(cx + 8, cy + 8, dx, dy - 8, "#444", 1.5)
        line(dx, dy + 1, dx, y, "#444", 1.5)
        el(f'<circle cx="{dx}" cy="{y}" r="2.5" fill="{RANK_C}"/>')
        el(f'<circle cx="{x}" cy="{y - 44}" r="2.5" fill="{FILE_C}"/>')
        if i == 0 and f == 0:
            text(x + 44, y - 30, "a8", 11, color="#444")

# pull-ups and the 74HC165
PY = OY + 7 * STEP + 95
for f in range(8):
    x = OX + f * STEP
    # each file wire goes on to the 74HC165; a 10 kOhm branch pulls it up to the +5 V rail
    el(f'<circle cx="{x}" cy="{PY - 10}" r="3" fill="{FILE_C}"/>')
    line(x, PY - 10, x + 24, PY - 10, "#000", 1.5)
    rect(x + 18, PY - 4, 12, 30, fill="#fff8e0")
    line(x + 24, PY + 26, x + 24, PY + 40, "#000", 1.5)
text(OX - 16, PY + 16, "10 kOhm to +5 V (x8)", 12, "end")
line(OX + 10, PY + 40, OX + 7 * STEP + 40, PY + 40, "#d08000", 2)
text(OX + 7 * STEP + 46, PY + 44, "+5 V", 12, color="#d08000")

SY = PY + 70
rect(OX - 30, SY, 7 * STEP + 60, 60, fill="#e8eef8")
text(OX + 3.5 * STEP, SY + 26, "74HC165 (parallel in, serial out)", 15, "middle", "bold")
text(OX + 3.5 * STEP, SY + 46, "inputs A..H = files a..h   CLK INH, SER to GND   VCC +5 V", 12, "middle")
for f in range(8):
    x = OX + f * STEP
    text(x + 4, SY - 4, "ABCDEFGH"[f], 11, color=FILE_C)

# 165 to the Arduino
for k, (pin, name) in enumerate([("D8", "SH/LD"), ("D9", "CLK"), ("D10", "QH")]):
    y = SY + 12 + k * 18
    line(170, y, OX - 30, y, "#208020", 2)
    text(160, y + 5, pin, 13, "end")
    text(OX - 36, y - 3, name, 11, "end", color="#208020")

# buttons and LED
BX = 20
text(BX + 75, 690, "A2 A3 A4 A5: buttons 1-4", 12, "middle")
text(BX + 75, 706, "to GND (internal pull-up)", 12, "middle")
text(BX + 75, 726, "D13: LED (lit per line)", 12, "middle")
text(BX + 75, 742, "USB: 115200 8N1", 12, "middle")

# legend
LX, LY = 960, 150
rect(LX - 10, LY - 25, 270, 300, fill="#fafafa", stroke="#999")
text(LX, LY, "How a scan reads a square", 14, weight="bold")
for k, s in enumerate([
    "1. One rank wire is driven LOW;",
    "   the other seven float (inputs).",
    "2. A closed reed pulls its file",
    "   wire low through its diode.",
    "3. SH/LD low loads all 8 files into",
    "   the 74HC165; 8 CLK pulses shift",
    "   them out on QH (h first).",
    "4. Then no rank: a file that still",
    "   reads low is grounded (E line).",
    "All 8 ranks every 1 ms; a change",
    "is reported after 20 ms steady.",
    "Without a diode, current finds a",
    "way back through another rank:",
    "a ghost at a rectangle's corner.",
]):
    text(LX, LY + 24 + 18 * k, s, 12)
el("</svg>")
sys.stdout.write("\n".join(out) + "\n")
