import { utils } from 'tronweb';
import type { NetworkCode } from '../../domain/networks';
import { tronHex } from './codec';
import { TronTokenContractMissingError, TronTokenDecimalsError } from './errors';
import { isEmpty, type TronNode } from './node';

/**
 * Start-up check: TRC20_TOKEN_ADDRESS is a contract on the node's chain and its decimals() is the
 * expected one (6 for USDT). Refuses to start otherwise, naming the variable.
 */
export async function checkToken(node: TronNode, network: NetworkCode, token: string, expectedDecimals: number): Promise<void> {
  const hex = tronHex(token);
  const contract = await node.contract(hex);
  if (isEmpty(contract) || (contract.bytecode ?? '') === '') throw new TronTokenContractMissingError(network, token);
  const answer = await node.constant({ ownerHex: hex, contractHex: hex, selector: 'decimals()', parameter: '' });
  const word = answer.constant_result?.[0];
  if (answer.result?.result !== true || word === undefined || word.length !== 64) throw new TronTokenDecimalsError(network, token, expectedDecimals, 'no answer to decimals()');
  const [decimals] = utils.abi.decodeParams([], ['uint8'], `0x${word}`) as [bigint];
  if (BigInt(decimals) !== BigInt(expectedDecimals)) throw new TronTokenDecimalsError(network, token, expectedDecimals, String(decimals));
}
