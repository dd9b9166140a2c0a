import { HttpRequestError, LimitExceededRpcError, RpcRequestError, TimeoutError } from 'viem';
import { RangeTooLargeError, RpcTransientError } from '../sync/errors';
import { classifyRpcError } from './rpc-errors';

const timeout = () => new TimeoutError({ body: { method: 'eth_getLogs' }, url: 'http://rpc.example' });

describe('classifyRpcError (by class, never by message)', () => {
  it('a timeout of a multi-block eth_getLogs narrows the range; of one block it is transient', () => {
    expect(classifyRpcError(timeout(), 'eth_getLogs', 500)).toBeInstanceOf(RangeTooLargeError);
    expect(classifyRpcError(timeout(), 'eth_getLogs', 1)).toBeInstanceOf(RpcTransientError);
    expect(classifyRpcError(timeout(), 'eth_blockNumber')).toBeInstanceOf(RpcTransientError);
  });

  it('a provider refusal narrows a range; a plain HTTP failure does not', () => {
    const refusal = new LimitExceededRpcError(new RpcRequestError({ body: {}, error: { code: -32005, message: 'whatever the provider says' }, url: 'http://rpc.example' }));
    expect(classifyRpcError(refusal, 'eth_getLogs', 100)).toBeInstanceOf(RangeTooLargeError);
    // The message mentions a timeout, the class does not: still transient (never matched by text).
    const http = new HttpRequestError({ url: 'http://rpc.example', status: 502, details: 'gateway timeout, query range too large' });
    expect(classifyRpcError(http, 'eth_getLogs', 100)).toBeInstanceOf(RpcTransientError);
  });
});
