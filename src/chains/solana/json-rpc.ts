/**
 * A JSON-RPC 2.0 call over HTTP POST with the answer parsed by JSON.parse and nothing else: for the
 * calls whose answers are large (getBlock: ~3 MB on mainnet), where @solana/web3.js's superstruct
 * validation of every field cost ~0.5 s of CPU per block (docs/performance.md, SOLANA). The caller
 * checks the fields it uses. Errors: JsonRpcError (the server's error object, by code) or
 * JsonRpcTransportError (network, timeout, HTTP status, not a JSON-RPC answer).
 */
export async function postJsonRpc(url: string, method: string, params: readonly unknown[], timeoutMs: number): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    throw new JsonRpcTransportError(`${method}: request failed`, { method, status: null }, { cause: error });
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw new JsonRpcTransportError(`${method}: HTTP ${response.status}`, { method, status: response.status });
  }
  let body: unknown;
  try {
    body = await response.json();
  } catch (error) {
    throw new JsonRpcTransportError(`${method}: the answer is not JSON`, { method, status: response.status }, { cause: error });
  }
  if (typeof body !== 'object' || body === null) throw new JsonRpcTransportError(`${method}: not a JSON-RPC answer`, { method, status: response.status });
  const answer = body as { error?: { code?: unknown; message?: unknown }; result?: unknown };
  if (answer.error !== undefined && answer.error !== null) {
    const code = typeof answer.error.code === 'number' ? answer.error.code : null;
    throw new JsonRpcError(`${method}: ${typeof answer.error.message === 'string' ? answer.error.message : 'error'}`, { method, code });
  }
  if (!('result' in answer)) throw new JsonRpcTransportError(`${method}: neither result nor error`, { method, status: response.status });
  return answer.result;
}

/** The server answered a JSON-RPC error object; `code` is its code (null when it gave none). */
export class JsonRpcError extends Error {
  override readonly name = 'JsonRpcError';
  readonly code: number | null;
  constructor(
    message: string,
    readonly details: { method: string; code: number | null },
  ) {
    super(message);
    this.code = details.code;
  }
}

/** No JSON-RPC answer: network failure, timeout, an HTTP error status (429, 5xx...), or a body that is not one. */
export class JsonRpcTransportError extends Error {
  override readonly name = 'JsonRpcTransportError';
  constructor(
    message: string,
    readonly details: { method: string; status: number | null },
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
