import type { Blockchain, SandboxContract, TreasuryContract } from '@ton/sandbox';
import { JettonMinter } from '@ton-community/assets-sdk/dist/jetton/JettonMinter';
import { JettonWallet } from '@ton-community/assets-sdk/dist/jetton/JettonWallet';
import { jettonContentToInternal, type JettonContent } from '@ton-community/assets-sdk/dist/jetton/content';
import { internalOnchainContentToCell } from '@ton-community/assets-sdk/dist/utils';
import { beginCell, type Cell, toNano } from '@ton/core';

/**
 * TEP-64 metadata as real masters carry it: on chain (0x00 + dict of sha256(key) -> snake string).
 * USDT's master keeps "uri" and "decimals" = "6" there; `decimals: undefined` omits the entry
 * (TEP-64 then means 9).
 */
export function onchainContent(content: JettonContent): Cell {
  return internalOnchainContentToCell(jettonContentToInternal(content));
}

/** Off-chain metadata only: 0x01 + the URI (decimals live in the JSON behind it). */
export function offchainContent(uri: string): Cell {
  return beginCell().storeUint(1, 8).storeStringTail(uri).endCell();
}

/** Deploys a standard jetton minter with the given metadata (e.g. a master of other decimals). */
export async function deployMinter(blockchain: Blockchain, admin: SandboxContract<TreasuryContract>, content: Cell): Promise<SandboxContract<JettonMinter>> {
  const minter = blockchain.openContract(JettonMinter.createFromConfig({ admin: admin.address, content, jettonWalletCode: JettonWallet.code }));
  await minter.sendDeploy(admin.getSender(), toNano('0.1'));
  return minter;
}
