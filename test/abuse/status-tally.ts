/**
 * Counts of the fuzzer's answers, printed as test diagnostics so that a run's figures can be quoted:
 * by status, by operation and status, by credential kind, and the statuses operations answered without
 * documenting them.
 */
import type { FuzzRequest } from './fuzz-requests.js';

function increment(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

function sorted(map: Map<string, number>): string {
  return [...map.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([k, n]) => `${k}: ${n}`).join(', ');
}

export class StatusTally {
  total = 0;
  /** Requests that got no answer within the bound (each fails the run). */
  unanswered = 0;
  slowestMs = 0;
  private readonly byStatus = new Map<string, number>();
  private readonly byOperation = new Map<string, number>();
  private readonly byCredential = new Map<string, number>();
  private readonly notDocumented = new Map<string, number>();

  private readonly msByOperation = new Map<string, number>();

  add(r: FuzzRequest, status: number, ms = 0): void {
    this.total++;
    this.slowestMs = Math.max(this.slowestMs, ms);
    const op = `${r.operation.method} ${r.operation.path}`;
    this.msByOperation.set(op, (this.msByOperation.get(op) ?? 0) + ms);
    increment(this.byStatus, String(status));
    increment(this.byOperation, `${r.exactRoute ? '' : '~'}${r.operation.method} ${r.operation.path} ${status}`);
    increment(this.byCredential, `${r.credential} ${status}`);
  }

  undocumented(r: FuzzRequest, status: number): void {
    increment(this.notDocumented, `${r.operation.method} ${r.operation.path} ${status}`);
  }

  report(elapsedMs: number): string[] {
    return [
      `${this.total} requests in ${(elapsedMs / 1000).toFixed(1)} s (${Math.round(this.total / (elapsedMs / 1000))}/s)`,
      `by status: ${sorted(this.byStatus)}; 5xx: ${[...this.byStatus].filter(([k]) => k.startsWith('5')).reduce((n, [, v]) => n + v, 0)}; unanswered within the bound: ${this.unanswered}; slowest answer ${Math.round(this.slowestMs)} ms`,
      `by operation (~ = other method or bent path): ${sorted(this.byOperation)}`,
      `by credential: ${sorted(this.byCredential)}`,
      `time by operation (ms): ${sorted(new Map([...this.msByOperation].map(([k, v]) => [k, Math.round(v)])))}`,
      `statuses answered but not in the operation's document: ${sorted(this.notDocumented) || 'none'}`,
    ];
  }
}
