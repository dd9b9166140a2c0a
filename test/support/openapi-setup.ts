import { checkResponse, drainViolations, isV1Path } from './openapi';

/**
 * Jest setupFilesAfterEnv, for every test file: each response to a `/v1` request made with fetch
 * (signed() in stack.ts, and every test that calls fetch itself) is validated against the served
 * OpenAPI document before the test sees it; a test during which any `/v1` response departed from
 * the document fails, even if the test swallowed the throw (a retry loop, allSettled).
 */
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);
const CHECKED = Symbol.for('chainpay.openapi.fetch');
const g = globalThis as unknown as Record<symbol, unknown> & { fetch: typeof fetch };

// The client package's own tests (clients/typescript/test) answer from fake servers of their own
// making (signing and paging checks), not from chainpay: only chainpay's answers are checked. The
// end-to-end tests that drive chainpay through the client live in test/ and are checked.
const FAKE_SERVER_TESTS = '/clients/typescript/test/';
const testPath = expect.getState().testPath ?? '';

if (g[CHECKED] === undefined && !testPath.replaceAll('\\', '/').includes(FAKE_SERVER_TESTS)) {
  const original = g.fetch;
  g[CHECKED] = original;
  g.fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const res = await original(input, init);
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (!LOOPBACK.has(url.hostname) || !isV1Path(url.pathname)) return res;
    let text: string;
    try {
      text = await res.clone().text();
    } catch {
      return res; // The body never fully came (the test aborted it): the test's own read fails the same way.
    }
    const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
    checkResponse({ method, target: url.pathname + url.search, status: res.status, header: (n) => res.headers.get(n) ?? undefined, text });
    return res;
  };
}

function failOnViolations(): void {
  const problems = drainViolations();
  if (problems.length > 0) throw new Error(`responses departed from the OpenAPI document (gateway/openapi/document.ts):\n${problems.join('\n')}`);
}

afterEach(failOnViolations);
afterAll(failOnViolations);
