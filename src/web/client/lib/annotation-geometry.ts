// Annotation geometry for the review editor (docs/review.md): normalized 0..1 coordinates of the preview,
// (0, 0) top-left. Every change goes through rectangleGeometry/polygonGeometry so `bounds` always agrees
// with `x/y/w/h` and `points`, as the API's Annotation schema describes them.

export type ShapeType = 'RECTANGLE' | 'POLYGON';
export type Point = [number, number];

export interface Bounds { minX: number; minY: number; maxX: number; maxY: number }
export interface Geometry {
  bounds: Bounds;
  x?: number | null;
  y?: number | null;
  w?: number | null;
  h?: number | null;
  points?: number[][] | null;
}
export interface AnnotationBody { value: string; id: string; annotation: string }
export interface Annotation {
  id?: string | null;
  bodies?: AnnotationBody[];
  properties?: { needs_remediation?: boolean | null; ai_likelihood?: number | null };
  target?: { annotation: string; selector: { type: ShapeType; geometry: Geometry } } | null;
}

/** Smallest rectangle side the editor keeps (a click is not a rectangle). */
export const MIN_SIZE = 0.005;

export const clamp01 = (n: number): number => (Number.isFinite(n) ? Math.min(1, Math.max(0, n)) : 0);
/** Six decimals: a millionth of the picture is finer than any pixel, and the JSON stays short. */
export const round6 = (n: number): number => Math.round(n * 1e6) / 1e6;

export function rectangleGeometry(x0: number, y0: number, x1: number, y1: number): Geometry {
  const minX = round6(clamp01(Math.min(x0, x1)));
  const minY = round6(clamp01(Math.min(y0, y1)));
  const maxX = round6(clamp01(Math.max(x0, x1)));
  const maxY = round6(clamp01(Math.max(y0, y1)));
  return { bounds: { minX, minY, maxX, maxY }, x: minX, y: minY, w: round6(maxX - minX), h: round6(maxY - minY) };
}

export function polygonGeometry(points: readonly Point[]): Geometry {
  const pts = points.map(([x, y]) => [round6(clamp01(x)), round6(clamp01(y))] as Point);
  const xs = pts.map((p) => p[0]);
  const ys = pts.map((p) => p[1]);
  const minX = Math.min(...xs);
  const minY = Math.min(...ys);
  const maxX = Math.max(...xs);
  const maxY = Math.max(...ys);
  return { bounds: { minX, minY, maxX, maxY }, x: minX, y: minY, w: round6(maxX - minX), h: round6(maxY - minY), points: pts };
}

/** The polygon's points, or the bounds' corners when it has fewer than three (as the overlay draws it). */
export function pointsOf(g: Geometry): Point[] {
  if (g.points && g.points.length >= 3) return g.points.map((p) => [p[0] ?? 0, p[1] ?? 0]);
  const b = g.bounds;
  return [[b.minX, b.minY], [b.maxX, b.minY], [b.maxX, b.maxY], [b.minX, b.maxY]];
}

/** Moves a shape by (dx, dy), stopped at the picture's edges without changing its size. */
export function translate(type: ShapeType, g: Geometry, dx: number, dy: number): Geometry {
  const b = g.bounds;
  const mx = Math.min(Math.max(dx, -b.minX), 1 - b.maxX);
  const my = Math.min(Math.max(dy, -b.minY), 1 - b.maxY);
  if (type === 'RECTANGLE') return rectangleGeometry(b.minX + mx, b.minY + my, b.maxX + mx, b.maxY + my);
  return polygonGeometry(pointsOf(g).map(([x, y]) => [x + mx, y + my]));
}

/** A rectangle's corner handle: 0 top-left, 1 top-right, 2 bottom-right, 3 bottom-left. */
export function resizeRectangle(g: Geometry, corner: number, x: number, y: number): Geometry {
  const b = g.bounds;
  // The opposite corner stays where it is.
  const fixedX = corner === 0 || corner === 3 ? b.maxX : b.minX;
  const fixedY = corner === 0 || corner === 1 ? b.maxY : b.minY;
  return rectangleGeometry(fixedX, fixedY, x, y);
}

export function moveVertex(g: Geometry, index: number, x: number, y: number): Geometry {
  return polygonGeometry(pointsOf(g).map((p, i) => (i === index ? [x, y] : p)));
}

export function isUsable(g: Geometry): boolean {
  return g.bounds.maxX - g.bounds.minX >= MIN_SIZE && g.bounds.maxY - g.bounds.minY >= MIN_SIZE;
}
