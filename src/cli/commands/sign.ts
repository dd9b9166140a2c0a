import fs from 'node:fs';
import { createHmac } from 'node:crypto';
import { CliError, UsageError } from '../errors';
import { readAllBytes } from '../io';
import type { Args, CommandSpec } from '../command';

/** Hex HMAC-SHA256 of the body bytes exactly as given; the empty body (a GET) signs ''. */
export function signBody(secret: string, body: Buffer): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

/**
 * The replay-safe scheme: hex HMAC-SHA256 of `timestamp.method.path.body` (path = request target
 * with its query string, exactly as sent). Same bytes as the daemon's timestampedPayload.
 */
export function signTimestamped(secret: string, parts: { timestamp: string; method: string; path: string; body: Buffer }): string {
  return createHmac('sha256', secret).update(`${parts.timestamp}.${parts.method}.${parts.path}.`).update(parts.body).digest('hex');
}

/** POSIX single quotes: everything literal, newlines included. */
export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The body as one shell word that reproduces its bytes exactly. */
function bodyWord(body: Buffer): string {
  const text = body.toString('utf8');
  if (Buffer.from(text, 'utf8').equals(body) && !text.includes('\0')) return shellQuote(text);
  if (body.includes(0)) throw new CliError('body_not_quotable', 'the body has a NUL byte; pass it with --body-file to get a curl command');
  // Not UTF-8: bash ANSI-C quoting, byte by byte.
  const escaped = [...body].map((b) => (b >= 0x20 && b < 0x7f && b !== 0x27 && b !== 0x5c ? String.fromCharCode(b) : `\\x${b.toString(16).padStart(2, '0')}`));
  return `$'${escaped.join('')}'`;
}

export interface CurlParams {
  readonly url: string;
  readonly key: string;
  readonly signature: string;
  readonly body: Buffer;
  /** When the body came from a file, curl reads the same file (`@file`): byte-identical by construction. */
  readonly bodyFile?: string;
  readonly method?: string;
  /** X-Service-Timestamp, when the signature is the timestamped one. */
  readonly timestamp?: string;
}

/** A ready-to-paste curl command carrying the signed body byte for byte. */
export function curlCommand(p: CurlParams): string {
  const hasBody = p.body.length > 0;
  const method = (p.method ?? (hasBody ? 'POST' : 'GET')).toUpperCase();
  const lines = [`curl -sS -X ${method} ${shellQuote(p.url)}`];
  if (hasBody) lines.push(`-H ${shellQuote('Content-Type: application/json')}`);
  lines.push(`-H ${shellQuote(`X-Service-Key: ${p.key}`)}`, `-H ${shellQuote(`X-Service-Signature: ${p.signature}`)}`);
  if (p.timestamp !== undefined) lines.push(`-H ${shellQuote(`X-Service-Timestamp: ${p.timestamp}`)}`);
  if (hasBody) lines.push(`--data-binary ${p.bodyFile !== undefined ? `@${shellQuote(p.bodyFile)}` : bodyWord(p.body)}`);
  return lines.join(' \\\n  ');
}

async function readBody(args: Args, stdin: Parameters<typeof readAllBytes>[0]): Promise<{ body: Buffer; file?: string }> {
  const inline = args.opt('body');
  const file = args.opt('body-file');
  if (inline !== undefined && file !== undefined) throw new UsageError('give --body or --body-file, not both', args.command);
  if (inline !== undefined) return { body: Buffer.from(inline, 'utf8') };
  if (file !== undefined) {
    try {
      return { body: fs.readFileSync(file), file };
    } catch (e) {
      throw new CliError('body_file_unreadable', `${file}: ${(e as Error).message}`);
    }
  }
  return { body: await readAllBytes(stdin) };
}

/** --timestamp: `now` (this machine's clock) or Unix seconds. */
function timestampOf(args: Args): string | undefined {
  const value = args.opt('timestamp');
  if (value === undefined) return undefined;
  if (value === 'now') return String(Math.floor(Date.now() / 1000));
  if (!/^\d{1,12}$/.test(value)) throw new UsageError('--timestamp is now or Unix seconds', args.command);
  return value;
}

/** The request target of a URL: its path and query, as curl sends them. */
function targetOf(url: string): string {
  try {
    const u = new URL(url);
    return u.pathname + u.search;
  } catch {
    throw new CliError('invalid_url', `${url} is not a URL`);
  }
}

export const signCommands: readonly CommandSpec[] = [
  {
    name: 'sign',
    usage: "[--secret S] [--body '<json>' | --body-file F] [--curl URL --key K [--method M]] [--timestamp now|SECONDS [--path P]]",
    summary: 'X-Service-Signature of a request body (stdin when no --body/--body-file; empty for a GET); --timestamp: the replay-safe scheme',
    options: {
      secret: { type: 'string' },
      body: { type: 'string' },
      'body-file': { type: 'string' },
      curl: { type: 'string' },
      key: { type: 'string' },
      method: { type: 'string' },
      timestamp: { type: 'string' },
      path: { type: 'string' },
    },
    async run({ args, out, io }) {
      const secret = args.opt('secret') ?? io.env.CHAINPAY_API_SECRET;
      if (!secret) throw new UsageError('--secret (or CHAINPAY_API_SECRET) is required', args.command);
      const url = args.opt('curl');
      const key = args.opt('key') ?? io.env.CHAINPAY_API_KEY;
      if (url !== undefined && !key) throw new UsageError('--curl needs --key (or CHAINPAY_API_KEY)', args.command);
      const { body, file } = await readBody(args, io.stdin);
      const method = (args.opt('method') ?? (body.length > 0 ? 'POST' : 'GET')).toUpperCase();
      const timestamp = timestampOf(args);
      let signature: string;
      if (timestamp === undefined) {
        signature = signBody(secret, body);
      } else {
        // The path as the server receives it: from --path, else the --curl URL's path and query.
        const path = args.opt('path') ?? (url !== undefined ? targetOf(url) : undefined);
        if (path === undefined) throw new UsageError('--timestamp needs --path (or --curl URL)', args.command);
        signature = signTimestamped(secret, { timestamp, method, path, body });
      }
      const stamped = timestamp === undefined ? {} : { timestamp };
      if (url === undefined) {
        out.result({ signature, ...stamped }, () => (timestamp === undefined ? signature : `${signature}\nX-Service-Timestamp: ${timestamp}`));
        return;
      }
      const curl = curlCommand({ url, key: key!, signature, body, bodyFile: file, method: args.opt('method'), timestamp });
      out.result({ signature, ...stamped, curl }, () => curl);
    },
  },
];
