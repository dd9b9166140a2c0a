import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpError } from '../errors';
import type { SafeHtml } from '../checkout/html';

/** No script at all (the pages work without it), styles and images from here, no framing, forms post only here. */
export const DASHBOARD_CSP = ["default-src 'none'", "style-src 'self'", "img-src 'self' data:", "form-action 'self'", "base-uri 'none'", "frame-ancestors 'none'"].join('; ');

export const SESSION_COOKIE = 'cp_dash_session';
/** The double-submit token of the forms shown before a session exists (sign-in, setup). */
export const FORM_COOKIE = 'cp_dash_form';
const FORM_LIMIT = 16 * 1024;

export function setDashboardHeaders(res: ServerResponse): void {
  res.setHeader('Content-Security-Policy', DASHBOARD_CSP);
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
  res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
  res.setHeader('Permissions-Policy', 'camera=(), microphone=(), geolocation=(), payment=()');
  res.setHeader('Cache-Control', 'no-store');
}

export function sendPage(res: ServerResponse, status: number, page: SafeHtml, cookies: readonly string[] = []): void {
  const body = Buffer.from(page.value, 'utf8');
  res.statusCode = status;
  setDashboardHeaders(res);
  if (cookies.length) res.setHeader('Set-Cookie', [...cookies]);
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Content-Length', body.length);
  res.setHeader('Vary', 'Accept-Language, Cookie');
  res.end(body);
}

export function sendRedirect(res: ServerResponse, location: string, cookies: readonly string[] = []): void {
  setDashboardHeaders(res);
  if (cookies.length) res.setHeader('Set-Cookie', [...cookies]);
  res.statusCode = 303;
  res.setHeader('Location', location);
  res.setHeader('Content-Length', 0);
  res.end();
}

export function readCookie(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim() || undefined;
  }
  return undefined;
}

/** HttpOnly, SameSite=Strict, scoped to /dashboard; Secure when the public URL is https. maxAge 0 deletes. */
export function cookie(name: string, value: string, secure: boolean, maxAgeSeconds?: number): string {
  const parts = [`${name}=${value}`, 'Path=/dashboard', 'HttpOnly', 'SameSite=Strict'];
  if (secure) parts.push('Secure');
  if (maxAgeSeconds !== undefined) parts.push(`Max-Age=${maxAgeSeconds}`);
  return parts.join('; ');
}

export function newFormToken(): string {
  return randomBytes(24).toString('base64url');
}

export function sameToken(a: string | undefined, b: string | undefined): boolean {
  if (!a || !b) return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** An application/x-www-form-urlencoded body (16 KiB at most). */
export async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') throw new HttpError(415, 'unsupported_media_type', 'a form is expected');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > FORM_LIMIT) throw new HttpError(413, 'payload_too_large', 'the form is too large');
    chunks.push(chunk as Buffer);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}
