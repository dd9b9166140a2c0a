/** What one CLI run may touch: injected so tests run the CLI in-process. */
export interface Writer {
  write(chunk: string): unknown;
}

export type CliEnv = Readonly<Record<string, string | undefined>>;

/** Bytes for `chainpay sign` when no --body/--body-file is given. */
export type StdinSource = AsyncIterable<Buffer | string> | Buffer | string;

export interface CliIO {
  readonly env: CliEnv;
  readonly stdout: Writer;
  readonly stderr: Writer;
  /** Absent or a TTY stream: `sign` treats the body as empty (a GET). */
  readonly stdin?: StdinSource;
  /** Aborting ends a running watch stream (Ctrl-C in the real process). */
  readonly signal?: AbortSignal;
}

/** Reads the whole stdin source as raw bytes, untouched. */
export async function readAllBytes(source: StdinSource | undefined): Promise<Buffer> {
  if (source === undefined) return Buffer.alloc(0);
  if (typeof source === 'string') return Buffer.from(source, 'utf8');
  if (Buffer.isBuffer(source)) return source;
  if ((source as { isTTY?: boolean }).isTTY) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  for await (const chunk of source) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk);
  return Buffer.concat(chunks);
}
