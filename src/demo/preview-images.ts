/**
 * Demo preview and layer images: a two-colour gradient with a few shapes, drawn from a seed, so every
 * demo order has a distinct, recognizable picture for the annotation overlay to sit on.
 */
import { encodePng } from './png.js';
import { seededRandom } from './random.js';

type Rgb = [number, number, number];

function hsl(h: number, s: number, l: number): Rgb {
  const a = s * Math.min(l, 1 - l);
  const f = (n: number) => {
    const k = (n + h / 30) % 12;
    return Math.round(255 * (l - a * Math.max(-1, Math.min(k - 3, 9 - k, 1))));
  };
  return [f(0), f(8), f(4)];
}

/** A PNG of width × height pixels, identical for the same seed. */
export function drawPreview(seed: number, width = 320, height = 240): Buffer {
  const rng = seededRandom(seed);
  const hue = rng.int(360);
  const from = hsl(hue, 0.55, 0.35);
  const to = hsl((hue + 60 + rng.int(120)) % 360, 0.6, 0.7);
  const pixels = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const t = (x / width + y / height) / 2;
      const o = (y * width + x) * 3;
      pixels[o] = from[0] + (to[0] - from[0]) * t;
      pixels[o + 1] = from[1] + (to[1] - from[1]) * t;
      pixels[o + 2] = from[2] + (to[2] - from[2]) * t;
    }
  }
  const fill = (test: (x: number, y: number) => boolean, color: Rgb) => {
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        if (!test(x, y)) continue;
        const o = (y * width + x) * 3;
        pixels[o] = color[0];
        pixels[o + 1] = color[1];
        pixels[o + 2] = color[2];
      }
    }
  };
  // A sun (disc) and a rectangle ("a building"): simple subjects the demo annotations can point at.
  const cx = width * (0.2 + rng.next() * 0.6);
  const cy = height * (0.2 + rng.next() * 0.3);
  const r = Math.min(width, height) * (0.08 + rng.next() * 0.1);
  fill((x, y) => (x - cx) ** 2 + (y - cy) ** 2 <= r * r, hsl((hue + 180) % 360, 0.8, 0.6));
  const rx = width * rng.next() * 0.5;
  const rw = width * (0.2 + rng.next() * 0.3);
  const ry = height * 0.6;
  fill((x, y) => x >= rx && x < rx + rw && y >= ry, hsl((hue + 90) % 360, 0.3, 0.2));
  return encodePng(width, height, pixels);
}
