/** Output formats of `certdesk-client`: a table on a terminal, JSON / NDJSON / CSV otherwise. */
import type { Writable } from 'node:stream';

export type Format = 'table' | 'json' | 'ndjson' | 'csv';

export function chooseFormat(flags: { json?: boolean; ndjson?: boolean; csv?: boolean }, isTty: boolean, machineDefault: Format): Format {
  if (flags.json) return 'json';
  if (flags.ndjson) return 'ndjson';
  if (flags.csv) return 'csv';
  return isTty ? 'table' : machineDefault;
}

export interface Column<T> {
  header: string;
  value: (row: T) => unknown;
}

function text(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map(text).join(';');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

export function csvField(value: unknown): string {
  const s = text(value);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** Writes with back-pressure: a slow reader (a pipe) slows the walk instead of filling memory. */
export async function write(out: Writable, chunk: string): Promise<void> {
  if (!out.write(chunk)) await new Promise<void>((resolve) => out.once('drain', resolve));
}

/** Streams rows in one format; `end()` closes a JSON array, and prints the table (tables need widths). */
export class RowWriter<T> {
  private count = 0;
  private readonly tableRows: string[][] = [];

  constructor(private readonly out: Writable, private readonly format: Format, private readonly columns: Column<T>[], private readonly width = 120) {}

  async row(item: T): Promise<void> {
    switch (this.format) {
      case 'ndjson':
        await write(this.out, `${JSON.stringify(item)}\n`);
        break;
      case 'json':
        await write(this.out, `${this.count === 0 ? '[\n' : ',\n'}${JSON.stringify(item)}`);
        break;
      case 'csv':
        if (this.count === 0) await write(this.out, `${this.columns.map((c) => csvField(c.header)).join(',')}\r\n`);
        await write(this.out, `${this.columns.map((c) => csvField(c.value(item))).join(',')}\r\n`);
        break;
      case 'table':
        this.tableRows.push(this.columns.map((c) => text(c.value(item))));
        break;
    }
    this.count++;
  }

  /**
   * Many rows as one write (a page of an export): one string and one wait for the reader instead of one
   * per row. Tables still collect their rows for `end()`.
   */
  async rows(items: readonly T[]): Promise<void> {
    if (items.length === 0) return;
    let chunk: string;
    switch (this.format) {
      case 'ndjson': {
        const lines = new Array<string>(items.length);
        for (let i = 0; i < items.length; i++) lines[i] = JSON.stringify(items[i]);
        chunk = `${lines.join('\n')}\n`;
        break;
      }
      case 'json': {
        const parts = new Array<string>(items.length);
        for (let i = 0; i < items.length; i++) parts[i] = JSON.stringify(items[i]);
        chunk = `${this.count === 0 ? '[\n' : ',\n'}${parts.join(',\n')}`;
        break;
      }
      case 'csv': {
        const header = this.count === 0 ? `${this.columns.map((c) => csvField(c.header)).join(',')}\r\n` : '';
        chunk = header + items.map((item) => `${this.columns.map((c) => csvField(c.value(item))).join(',')}\r\n`).join('');
        break;
      }
      case 'table':
        for (const item of items) this.tableRows.push(this.columns.map((c) => text(c.value(item))));
        this.count += items.length;
        return;
    }
    this.count += items.length;
    await write(this.out, chunk);
  }

  async end(): Promise<void> {
    if (this.format === 'json') await write(this.out, this.count === 0 ? '[]\n' : '\n]\n');
    if (this.format === 'csv' && this.count === 0) await write(this.out, `${this.columns.map((c) => csvField(c.header)).join(',')}\r\n`);
    if (this.format === 'table') await write(this.out, table(this.columns.map((c) => c.header), this.tableRows, this.width));
  }
}

/** Writes items that are JSON texts already (one line each) as NDJSON or as a JSON array, a batch per write. */
export class JsonTextWriter {
  private count = 0;

  constructor(private readonly out: Writable, private readonly format: 'json' | 'ndjson') {}

  async rows(items: readonly string[]): Promise<void> {
    if (items.length === 0) return;
    const chunk = this.format === 'ndjson' ? `${items.join('\n')}\n` : `${this.count === 0 ? '[\n' : ',\n'}${items.join(',\n')}`;
    this.count += items.length;
    await write(this.out, chunk);
  }

  async end(): Promise<void> {
    if (this.format === 'json') await write(this.out, this.count === 0 ? '[]\n' : '\n]\n');
  }
}

/** A plain aligned table, the widest columns cut to fit the terminal's width. */
export function table(headers: string[], rows: string[][], width: number): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const gap = 2;
  while (widths.reduce((a, b) => a + b, 0) + gap * (widths.length - 1) > width) {
    const widest = widths.indexOf(Math.max(...widths));
    if (widths[widest]! <= 8) break;
    widths[widest]!--;
  }
  const cell = (s: string, w: number): string => (s.length > w ? `${s.slice(0, Math.max(0, w - 1))}…` : s.padEnd(w));
  const line = (cells: string[]): string => cells.map((c, i) => cell(c, widths[i]!)).join(' '.repeat(gap)).trimEnd();
  return [line(headers), ...rows.map(line)].join('\n') + '\n';
}

/** One object: pretty JSON, or a key/value table on a terminal. */
export async function printObject(out: Writable, format: Format, value: unknown): Promise<void> {
  if (format === 'table' && value && typeof value === 'object' && !Array.isArray(value)) {
    const entries = Object.entries(value as Record<string, unknown>);
    const w = Math.max(...entries.map(([k]) => k.length));
    await write(out, entries.map(([k, v]) => `${k.padEnd(w)}  ${text(v)}`).join('\n') + '\n');
    return;
  }
  await write(out, `${JSON.stringify(value, null, 2)}\n`);
}
