import { isDeepStrictEqual } from 'node:util';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { OPENAPI_DOCUMENT } from '../../gateway/openapi/document';

/**
 * Validates `/v1` responses (and webhook deliveries) against the served OpenAPI 3.1 document with a
 * real JSON Schema 2020-12 validator (ajv). A response is refused when its status is not one its
 * operation lists (a path the document lacks must be 404 `not_found`; a method a listed path lacks
 * must be 405 with the path's methods in Allow), its Content-Type is not a documented media type,
 * a documented header is missing or malformed, or its body drifts from the schema.
 *
 * Every `/v1` response the suite receives goes through here: test/support/openapi-setup.ts wraps
 * fetch for every test file, and the raw node:http helpers call checkResponse themselves.
 */
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
const DOCUMENT_ID = 'chainpay-openapi';
ajv.addSchema({ $id: DOCUMENT_ID, components: OPENAPI_DOCUMENT.components });

type Json = Record<string, unknown>;
interface HeaderObject {
  required?: boolean;
  schema: Json;
  'x-required-for-codes'?: readonly string[];
}
interface ResponseObject {
  description: string;
  headers?: Record<string, HeaderObject | { $ref: string }>;
  content?: Record<string, { schema: Json }>;
}
interface Operation {
  operationId?: string;
  responses: Record<string, ResponseObject | { $ref: string }>;
  parameters?: readonly { name: string; in: string; required?: boolean; schema: Json }[];
}

/** What the suite saw of one response. `header` is case-insensitive, undefined when absent. */
export interface ObservedResponse {
  readonly method: string;
  /** The request target as sent: path and query. */
  readonly target: string;
  readonly status: number;
  header(name: string): string | undefined;
  readonly text: string;
}

const DOC = OPENAPI_DOCUMENT as unknown as { paths: Record<string, Record<string, Operation>>; webhooks: Record<string, Record<string, Operation>>; components: Json };

const RESPONSES = DOC.components.responses as Record<string, ResponseObject>;

/** The document's own `#/...` references, resolved against the registered components. */
function absolute(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(absolute);
  if (value === null || typeof value !== 'object') return value;
  const out: Json = {};
  for (const [k, v] of Object.entries(value)) out[k] = k === '$ref' && typeof v === 'string' && v.startsWith('#/') ? `${DOCUMENT_ID}${v}` : absolute(v);
  return out;
}

const compiled = new Map<unknown, ValidateFunction>();
function validatorOf(schema: Json): ValidateFunction {
  let v = compiled.get(schema);
  if (v === undefined) {
    v = ajv.compile(absolute(schema) as Json);
    compiled.set(schema, v);
  }
  return v;
}

function resolve<T>(obj: T | { $ref: string }): T {
  const ref = (obj as { $ref?: unknown }).$ref;
  if (typeof ref !== 'string') return obj as T;
  let at: unknown = DOC;
  for (const part of ref.slice(2).split('/')) at = (at as Json)[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  if (at === undefined) throw new Error(`OpenAPI: unresolved ${ref}`);
  return at as T;
}

/** The gateway's route match (gateway/routes.ts): a `{param}` takes one non-empty segment that percent-decodes. */
function pathItemOf(pathname: string): { template: string; item: Record<string, Operation> } | undefined {
  const segments = pathname.split('/');
  for (const [template, item] of Object.entries(DOC.paths)) {
    const want = template.split('/');
    if (want.length !== segments.length) continue;
    if (want.every((w, i) => (w.startsWith('{') ? decodes(segments[i]!) : w === segments[i]))) return { template, item };
  }
  return undefined;
}

function decodes(segment: string): boolean {
  try {
    return decodeURIComponent(segment) !== '';
  } catch {
    return false;
  }
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** Every way `r` departs from the document; empty when it matches. */
export function openApiViolations(r: ObservedResponse): string[] {
  const pathname = r.target.split('?', 1)[0]!;
  const method = r.method.toUpperCase();
  const found = pathItemOf(pathname);
  const where = `${method} ${found?.template ?? pathname} ${r.status}`;
  if (found === undefined) return responseViolations(r, `${where} (no such path)`, RESPONSES.RouteNotFound!, 404);
  const op = found.item[method.toLowerCase()];
  if (op === undefined) {
    const problems = responseViolations(r, `${where} (method not documented)`, RESPONSES.MethodNotAllowed!, 405);
    const documented = METHODS.filter((m) => m in found.item).map((m) => m.toUpperCase());
    const allow = (r.header('allow') ?? '').split(',').map((m) => m.trim());
    if (!isDeepStrictEqual([...allow].sort(), [...documented].sort())) problems.push(`${where}: Allow is "${r.header('allow')}", the document lists ${documented.join(', ')}`);
    return problems;
  }
  const declared = op.responses[String(r.status)] ?? op.responses[`${String(r.status)[0]}XX`] ?? op.responses.default;
  if (declared === undefined) return [`${where}: the document does not list status ${r.status} for ${op.operationId} (body ${r.text.slice(0, 300)})`];
  const problems = responseViolations(r, where, resolve(declared));
  if (op.operationId === 'getOpenApi' && r.status === 200 && problems.length === 0 && !isDeepStrictEqual(JSON.parse(r.text), JSON.parse(JSON.stringify(OPENAPI_DOCUMENT)))) {
    problems.push(`${where}: the served document is not the committed one (gateway/openapi/document.ts)`);
  }
  return problems;
}

function responseViolations(r: ObservedResponse, where: string, response: ResponseObject, status?: number): string[] {
  const problems: string[] = [];
  if (status !== undefined && r.status !== status) return [`${where}: expected ${status} (${response.description})`];
  let body: unknown;
  const media = response.content ? Object.keys(response.content) : [];
  const head = r.method.toUpperCase() === 'HEAD';
  if (media.length > 0 && !head) {
    const type = (r.header('content-type') ?? '').split(';', 1)[0]!.trim().toLowerCase();
    if (!media.includes(type)) problems.push(`${where}: Content-Type "${r.header('content-type')}" is not one of ${media.join(', ')}`);
    try {
      body = JSON.parse(r.text);
    } catch {
      return [...problems, `${where}: the body is not JSON: ${r.text.slice(0, 200)}`];
    }
    const schema = response.content![media[0]!]!.schema;
    const validate = validatorOf(schema);
    if (!validate(body)) problems.push(`${where}: the body does not match the document: ${ajv.errorsText(validate.errors)}; body ${r.text.slice(0, 500)}`);
  }
  const code = (body as { error?: { code?: unknown } } | undefined)?.error?.code;
  for (const [name, declared] of Object.entries(response.headers ?? {})) {
    const h = resolve<HeaderObject>(declared);
    const value = r.header(name);
    const required = h.required === true || (typeof code === 'string' && (h['x-required-for-codes'] ?? []).includes(code));
    if (value === undefined) {
      if (required) problems.push(`${where}: header ${name} is missing`);
      continue;
    }
    const validate = validatorOf(h.schema);
    if (!validate(value)) problems.push(`${where}: header ${name}: "${value}" ${ajv.errorsText(validate.errors)}`);
  }
  const internalId = (body as { error?: { id?: unknown } } | undefined)?.error?.id;
  if (r.status === 500 && internalId !== undefined && internalId !== r.header('x-request-id')) problems.push(`${where}: error.id ${String(internalId)} is not the X-Request-Id`);
  return problems;
}

/** A webhook delivery (headers as node:http gives them, the raw body) against the document's `webhooks`. */
export function webhookViolations(headers: Readonly<Record<string, string | string[] | undefined>>, body: Buffer): string[] {
  let event: { type?: unknown };
  try {
    event = JSON.parse(body.toString('utf8'));
  } catch {
    return [`webhook: the body is not JSON: ${body.toString('utf8').slice(0, 200)}`];
  }
  const type = String(event?.type);
  const name = type.startsWith('invoice.') ? 'invoiceEvent' : type.startsWith('withdrawal.') ? 'withdrawalEvent' : type === 'ping' ? 'pingEvent' : undefined;
  if (name === undefined) return [`webhook: event type "${type}" is not documented under webhooks`];
  const op = DOC.webhooks[name]!.post!;
  const problems: string[] = [];
  for (const p of op.parameters ?? []) {
    const raw = headers[p.name.toLowerCase()];
    const value = Array.isArray(raw) ? raw.join(', ') : raw;
    if (value === undefined) {
      if (p.required) problems.push(`webhook ${type}: header ${p.name} is missing`);
      continue;
    }
    const validate = validatorOf(p.schema);
    if (!validate(value)) problems.push(`webhook ${type}: header ${p.name}: "${value}" ${ajv.errorsText(validate.errors)}`);
  }
  const contentType = String(headers['content-type'] ?? '')
    .split(';', 1)[0]!
    .trim();
  if (contentType !== 'application/json') problems.push(`webhook ${type}: Content-Type "${contentType}"`);
  const validate = validatorOf((op as unknown as { requestBody: { content: Record<string, { schema: Json }> } }).requestBody.content['application/json']!.schema);
  if (!validate(event)) problems.push(`webhook ${type}: the body does not match the document: ${ajv.errorsText(validate.errors)}`);
  return problems;
}

/** Violations seen since the last drain; global so that every module instance records into one list. */
const RECORD = Symbol.for('chainpay.openapi.violations');
function recorded(): string[] {
  const g = globalThis as unknown as Record<symbol, string[] | undefined>;
  g[RECORD] ??= [];
  return g[RECORD];
}

/**
 * Validates one `/v1` response: a violation is recorded (the test then fails in afterEach even if a
 * retry loop swallowed the throw) and thrown.
 */
export function checkResponse(r: ObservedResponse): void {
  report(openApiViolations(r));
}

/** As checkResponse, but only recorded (the test fails in afterEach): for node:http callbacks, where a throw would be uncaught. */
export function noteResponse(r: ObservedResponse): void {
  recorded().push(...openApiViolations(r));
}

/** A webhook delivery the suite received: violations are recorded (the test fails in afterEach). */
export function noteWebhook(headers: Readonly<Record<string, string | string[] | undefined>>, body: Buffer): void {
  recorded().push(...webhookViolations(headers, body));
}

function report(problems: readonly string[]): void {
  if (problems.length === 0) return;
  recorded().push(...problems);
  throw new OpenApiViolation(problems);
}

/** Takes the violations recorded so far (the setup file fails the test that saw any). */
export function drainViolations(): string[] {
  return recorded().splice(0);
}

export class OpenApiViolation extends Error {
  override readonly name = 'OpenApiViolation';
  constructor(readonly problems: readonly string[]) {
    super(`OpenAPI: ${problems.join('\n')}`);
  }
}

/** `target`'s response with a parsed body against the document; throws (without recording) on a violation. */
export function assertMatchesOpenApi(method: string, target: string, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const lower = Object.fromEntries(Object.entries({ 'content-type': 'application/json', 'x-request-id': 'test', ...headers }).map(([k, v]) => [k.toLowerCase(), v]));
  const problems = openApiViolations({ method, target, status, header: (n) => lower[n.toLowerCase()], text: JSON.stringify(body) });
  if (problems.length > 0) throw new OpenApiViolation(problems);
}

/** The node:http form of a response's headers, for ObservedResponse.header. */
export function headerReader(headers: Readonly<Record<string, string | string[] | undefined>>): (name: string) => string | undefined {
  return (name) => {
    const v = headers[name.toLowerCase()];
    return Array.isArray(v) ? v.join(', ') : v;
  };
}

/** Whether a URL's response is the gateway's `/v1` answer the suite validates. */
export function isV1Path(pathname: string): boolean {
  return pathname === '/v1' || pathname.startsWith('/v1/');
}
