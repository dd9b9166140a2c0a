import { utils } from 'tronweb';

/**
 * Hardhat (EVM JSON-RPC) objects -> java-tron full-node JSON shapes, as TronGrid serves them
 * (tronweb's types/APIResponse.d.ts Block, types/Trx.d.ts TransactionInfo): hex without 0x,
 * addresses 41-prefixed except in logs (20 bytes, no prefix), times in ms.
 */
export interface EvmBlock {
  number: string;
  hash: string;
  parentHash: string;
  timestamp: string;
  miner: string;
  transactionsRoot: string;
  transactions: string[];
}

export interface EvmReceipt {
  transactionHash: string;
  blockNumber: string;
  status: string;
  gasUsed: string;
  to: string | null;
  from: string;
  contractAddress: string | null;
  logs: Array<{ address: string; topics: string[]; data: string }>;
}

/** The signed transaction JSON a TRON wallet broadcasts (and getblockbynum lists, with `ret`). */
export interface TronTxJson {
  txID: string;
  raw_data: {
    contract: Array<{ parameter: { value: Record<string, unknown>; type_url: string }; type: string }>;
    ref_block_bytes: string;
    ref_block_hash: string;
    expiration: number;
    timestamp: number;
    fee_limit?: number;
  };
  raw_data_hex: string;
  signature?: string[];
  visible?: boolean;
}

const strip = (hex: string): string => hex.replace(/^0x/, '').toLowerCase();

/** blockID: the 8-byte height, then the last 24 bytes of the block hash (as java-tron builds it). */
export function blockId(height: number, evmHash: string): string {
  return height.toString(16).padStart(16, '0') + strip(evmHash).slice(-48);
}

export function tronBlock(block: EvmBlock, txs: TronTxJson[], receipts: Map<string, EvmReceipt>, detail = true): Record<string, unknown> {
  const height = Number(block.number);
  const raw: Record<string, unknown> = {
    ...(height === 0 ? {} : { number: height }),
    txTrieRoot: strip(block.transactionsRoot),
    witness_address: `41${strip(block.miner)}`,
    parentHash: height === 0 ? '0'.repeat(64) : blockId(height - 1, block.parentHash),
    version: 31,
    timestamp: Number(block.timestamp) * 1000,
  };
  const out: Record<string, unknown> = { blockID: blockId(height, block.hash), block_header: { raw_data: raw, witness_signature: '00'.repeat(65) } };
  if (detail && txs.length > 0) {
    out.transactions = txs.map((tx, i) => {
      const receipt = receipts.get(block.transactions[i]!);
      const contractRet = receipt && receipt.status !== '0x1' ? 'REVERT' : 'SUCCESS';
      return { ret: [{ contractRet }], signature: tx.signature ?? [], txID: tx.txID, raw_data: tx.raw_data, raw_data_hex: tx.raw_data_hex };
    });
  }
  return out;
}

/** One TransactionInfo: a contract call has a receipt with energy and a result, and its logs; a plain transfer only bandwidth. */
export function tronInfo(txID: string, receipt: EvmReceipt, blockTimeMs: number, isContractCall: boolean): Record<string, unknown> {
  const blockNumber = Number(receipt.blockNumber);
  if (!isContractCall) return { id: txID, blockNumber, blockTimeStamp: blockTimeMs, contractResult: [''], receipt: { net_usage: 268 } };
  const ok = receipt.status === '0x1';
  const energy = Number(receipt.gasUsed);
  const info: Record<string, unknown> = {
    id: txID,
    fee: energy * 100 + 345_000,
    blockNumber,
    blockTimeStamp: blockTimeMs,
    contractResult: [ok ? `${'0'.repeat(63)}1` : ''],
    contract_address: receipt.to ? `41${strip(receipt.to)}` : undefined,
    receipt: { energy_fee: energy * 100, energy_usage_total: energy, net_fee: 345_000, result: ok ? 'SUCCESS' : 'REVERT' },
  };
  if (ok && receipt.logs.length > 0) info.log = receipt.logs.map((l) => ({ address: strip(l.address), topics: l.topics.map(strip), data: strip(l.data) }));
  if (!ok) {
    info.result = 'FAILED';
    info.resMessage = Buffer.from('REVERT opcode executed').toString('hex');
  }
  return info;
}

/** txID and raw_data_hex of a transaction JSON by tronweb's own protobuf encoder (sha256 of raw_data). */
export function txIdOf(tx: Pick<TronTxJson, 'raw_data'> & { visible?: boolean }): { txID: string; rawDataHex: string } {
  const pb = utils.transaction.txJsonToPb({ visible: false, ...tx } as never);
  return { txID: utils.transaction.txPbToTxID(pb).replace(/^0x/, ''), rawDataHex: utils.transaction.txPbToRawDataHex(pb).toLowerCase() };
}
