import { HttpRequestError, LimitExceededRpcError, RpcRequestError, TimeoutError } from 'viem';
import { RangeTooLargeError, RpcTimeoutError, RpcTransientError } from '../sync/errors';
import { classifyRpcError } from './rpc-errors';

const timeout = () => new TimeoutError({ body: { method: 'eth_getLogs' }, url: 'http://rpc.example' });

describe('classifyRpcError (by class, never by message)', () => {
  it('a timeout is a timeout, whatever the range: RpcTimeoutError (retried), carrying the range size, never a refusal', () => {
    const ranged = classifyRpcError(timeout(), 'eth_getLogs', 500);
    expect(ranged).toBeInstanceOf(RpcTimeoutError);
    expect(ranged).not.toBeInstanceOf(RangeTooLargeError);
    expect(ranged).toMatchObject({ code: 'rpc_timeout', retryable: true, blocks: 500 });
    expect(classifyRpcError(timeout(), 'eth_getLogs', 1)).toMatchObject({ name: 'RpcTimeoutError', blocks: 1 });
    expect(classifyRpcError(timeout(), 'eth_blockNumber')).toBeInstanceOf(RpcTimeoutError);
  });

  it('a provider refusal narrows a range; a plain HTTP failure does not', () => {
    const refusal = new LimitExceededRpcError(new RpcRequestError({ body: {}, error: { code: -32005, message: 'whatever the provider says' }, url: 'http://rpc.example' }));
    expect(classifyRpcError(refusal, 'eth_getLogs', 100)).toMatchObject({ name: 'RangeTooLargeError', blocks: 100 });
    // One block cannot be narrowed: the same refusal of a by-hash query is transient.
    expect(classifyRpcError(refusal, 'eth_getLogs', 1)).toBeInstanceOf(RpcTransientError);
    // The message mentions a timeout, the class does not: still transient (never matched by text).
    const http = new HttpRequestError({ url: 'http://rpc.example', status: 502, details: 'gateway timeout, query range too large' });
    expect(classifyRpcError(http, 'eth_getLogs', 100)).toBeInstanceOf(RpcTransientError);
  });
});
