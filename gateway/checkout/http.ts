import type { ServerResponse } from 'node:http';
import type { SafeHtml } from './html';

/**
 * Only our own origin, no inline script or style (the page's data rides in a JSON block, which
 * does not execute), no framing, forms post only back here.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  // The network logos are this gateway's own files; QR codes are inline SVG.
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

export function setSecurityHeaders(res: ServerResponse): void {
  res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
  res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
  res.setHeader('Permissions-Policy', 'camera=(), microphone=(), geolocation=(), payment=()');
}

export function sendHtml(res: ServerResponse, status: number, page: SafeHtml, headers: Readonly<Record<string, string>> = {}): void {
  if (res.headersSent) return;
  const body = Buffer.from(page.value, 'utf8');
  res.statusCode = status;
  setSecurityHeaders(res);
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Content-Length', body.length);
  // The page shows live payment state: never from a cache, never stored by a shared one.
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Vary', 'Accept-Language');
  res.end(body);
}

export function redirect(res: ServerResponse, location: string): void {
  setSecurityHeaders(res);
  res.statusCode = 303;
  res.setHeader('Location', location);
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Content-Length', 0);
  res.end();
}
