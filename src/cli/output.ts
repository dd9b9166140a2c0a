import type { CliError } from './errors';
import type { Writer } from './io';

/** How a value reads in a human table: null/undefined as '-', nested values as compact JSON. */
function cell(v: unknown): string {
  if (v === undefined || v === null || v === '') return '-';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** Left-aligned columns with a header row; "(none)" for an empty list. */
export function table<T extends object>(rows: readonly T[], columns: readonly (keyof T & string)[]): string {
  if (rows.length === 0) return '(none)';
  const grid = [columns.map((c) => c.toUpperCase()), ...rows.map((r) => columns.map((c) => cell(r[c])))];
  const widths = columns.map((_, i) => Math.max(...grid.map((line) => line[i]!.length)));
  return grid.map((line) => line.map((v, i) => (i === line.length - 1 ? v : v.padEnd(widths[i]!))).join('  ')).join('\n');
}

/** `key  value` lines, in `keys` order when given (else the object's own order). */
export function fields<T extends object>(obj: T, keys?: readonly (keyof T & string)[]): string {
  const record = obj as Record<string, unknown>;
  const names: readonly string[] = keys ?? Object.keys(record).filter((k) => !Array.isArray(record[k]));
  const width = Math.max(0, ...names.map((k) => k.length));
  return names.map((k) => `${k.padEnd(width)}  ${cell(record[k])}`).join('\n');
}

/**
 * Output of one run: with --json exactly one JSON document on stdout (or one compact line per
 * stream update); without it the human text. Errors go to stderr, and as JSON to stdout with --json.
 */
export class Output {
  constructor(
    private readonly stdout: Writer,
    private readonly stderr: Writer,
    readonly json: boolean,
  ) {}

  result(doc: unknown, human: () => string): void {
    this.stdout.write(this.json ? `${JSON.stringify(doc, null, 2)}\n` : `${human()}\n`);
  }

  /** One update of a stream: a compact JSON line with --json. */
  update(doc: unknown, human: () => string): void {
    this.stdout.write(this.json ? `${JSON.stringify(doc)}\n` : `${human()}\n`);
  }

  /** Raw text, the same with and without --json (the `sign` signature, help). */
  text(s: string): void {
    this.stdout.write(s);
  }

  error(err: CliError): void {
    const field = err.field ? ` (field: ${err.field})` : '';
    this.stderr.write(`error: ${err.code}: ${err.message}${field}\n`);
    if (this.json) this.stdout.write(`${JSON.stringify({ error: err.toJSON() }, null, 2)}\n`);
  }

  usage(message: string, usage: string): void {
    this.stderr.write(`error: ${message}\n\n${usage}\n`);
    if (this.json) this.stdout.write(`${JSON.stringify({ error: { code: 'usage', message } }, null, 2)}\n`);
  }
}
