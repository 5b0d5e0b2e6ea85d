/**
 * Renders the installable app's PNG icons (public/icons/) from the same drawing as app/icon.svg:
 * a blue rounded square with a white "P" and a cursor line. Plain Node (zlib), no image library;
 * the outputs are committed, so run it only when the drawing changes:
 * `npx tsx scripts/make-icons.ts`.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { deflateSync } from "node:zlib";

const BLUE = [0x1d, 0x4e, 0xd8];
const HALF_STROKE = 0.9;

type Pt = [number, number];

function segDist([px, py]: Pt, [ax, ay]: Pt, [bx, by]: Pt): number {
  const dx = bx - ax;
  const dy = by - ay;
  const t = Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)));
  return Math.hypot(px - ax - t * dx, py - ay - t * dy);
}

/** True when point p (in the SVG's 20x20 units) lies on a white stroke. */
function onGlyph(p: Pt): boolean {
  const segs: Array<[Pt, Pt]> = [
    [
      [5, 14],
      [5, 6],
    ],
    [
      [5, 6],
      [9.2, 6],
    ],
    [
      [9.2, 11.2],
      [5, 11.2],
    ],
    [
      [12.5, 14],
      [15.5, 14],
    ],
  ];
  if (segs.some(([a, b]) => segDist(p, a, b) <= HALF_STROKE)) return true;
  // The bowl of the P: a half circle of radius 2.6 around (9.2, 8.6), on its right.
  const r = Math.hypot(p[0] - 9.2, p[1] - 8.6);
  return p[0] >= 9.2 && Math.abs(r - 2.6) <= HALF_STROKE;
}

/** True when p lies inside the rounded square (1..19, radius 4). */
function inSquare([x, y]: Pt): boolean {
  if (x < 1 || x > 19 || y < 1 || y > 19) return false;
  const cx = Math.min(Math.max(x, 5), 15);
  const cy = Math.min(Math.max(y, 5), 15);
  return Math.hypot(x - cx, y - cy) <= 4;
}

/**
 * RGBA pixels of a `size` px icon. `maskable`: full-bleed background, glyph in the safe zone;
 * `badge`: the white glyph alone on transparency (Android draws badges from their alpha).
 */
function render(size: number, maskable: boolean, badge = false): Buffer {
  const px = Buffer.alloc(size * size * 4);
  const n = 4; // 4x4 supersampling
  for (let y = 0; y < size; y++)
    for (let x = 0; x < size; x++) {
      let bg = 0;
      let fg = 0;
      for (let sy = 0; sy < n; sy++)
        for (let sx = 0; sx < n; sx++) {
          const u = ((x + (sx + 0.5) / n) / size) * 20;
          const v = ((y + (sy + 0.5) / n) / size) * 20;
          // Maskable: the drawing shrinks to 70% around the centre (inside the 80% safe zone).
          const p: Pt = maskable ? [10 + (u - 10) / 0.7, 10 + (v - 10) / 0.7] : [u, v];
          const inside = maskable || inSquare(p);
          if (inside) bg++;
          if (inside && onGlyph(p)) fg++;
        }
      const a = (badge ? fg : bg) / (n * n);
      const w = badge ? 1 : bg ? fg / bg : 0;
      const i = (y * size + x) * 4;
      for (let c = 0; c < 3; c++) px[i + c] = Math.round(BLUE[c]! * (1 - w) + 255 * w);
      px[i + 3] = Math.round(a * 255);
    }
  return px;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(buf: Buffer): number {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/** Encodes RGBA pixels as a PNG (8-bit RGBA, no filter). */
function png(size: number, rgba: Buffer): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8;
  ihdr[9] = 6;
  const rows = Buffer.alloc(size * (size * 4 + 1));
  for (let y = 0; y < size; y++)
    rgba.copy(rows, y * (size * 4 + 1) + 1, y * size * 4, (y + 1) * size * 4);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(rows, { level: 9 })),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

const out = path.join(import.meta.dirname, "../public/icons");
for (const [name, size, maskable] of [
  ["icon-192.png", 192, false],
  ["icon-512.png", 512, false],
  ["icon-maskable-512.png", 512, true],
  ["badge-96.png", 96, false],
] as const) {
  writeFileSync(path.join(out, name), png(size, render(size, maskable, name.startsWith("badge"))));
  console.log(`public/icons/${name}`);
}
