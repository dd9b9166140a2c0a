import { type Address, internal, SendMode, toNano } from '@ton/core';
import { keyPairFromSeed } from '@ton/crypto';
import { WalletContractV4 } from '@ton/ton';
import { TonCodec } from '../../src/chains/ton';
import { eventually, rpc, signed } from '../support/stack';
import { backdateWhitelist, balance, expectLedgerExact, stackRpcs, waitForWithdrawal, whitelist } from '../withdrawals/support';
import { TEST_MNEMONIC } from './support/adapter';
import { startPayoutStack, type PayoutStack } from './support/payout-stack';

jest.setTimeout(120_000);

/**
 * What TON proves before a payout counts (issue 45 items 1, 2, 4), on the harness with real inclusion
 * (externals held a block, committed seqno only, one hop per block): a stranger cannot fail our
 * payout, a payee's jetton wallet that refuses the jettons fails it (never `completed` first), and a
 * seqno taken by another message of our key waits for an operator.
 */
let h: PayoutStack;
let payee: Address;
let refuser: Address;
let ourJettonWallet: Address;

beforeAll(async () => {
  h = await startPayoutStack({
    // Blocks slower than the payout poll: every intermediate state of a transfer is seen by the daemon.
    inclusion: { blockMs: 250, blockSeconds: 0 },
    deposit: '100',
    payees: async (chain) => {
      payee = (await chain.blockchain.treasury('payee')).address;
      refuser = (await chain.blockchain.treasury('refuser')).address;
      return [payee, refuser];
    },
  });
  ourJettonWallet = await h.chain.jettonWallet(h.service);
}, 120_000);

afterAll(async () => {
  await h?.stop();
});

/** Polls the withdrawal (REST) until it is final, recording every status seen on the way. */
async function statusesUntil(uuid: string, final: string): Promise<string[]> {
  const seen: string[] = [];
  await eventually(
    async () => {
      const status = String((await signed(h.stack, h.m, 'GET', `/v1/withdrawals/${uuid}`)).body.status);
      if (seen.at(-1) !== status) seen.push(status);
      return ['completed', 'failed', 'rejected'].includes(status) ? true : undefined;
    },
    60_000,
    `withdrawal ${uuid} to be ${final}`,
  );
  return seen;
}

async function currentStatus(uuid: string): Promise<string | undefined> {
  const rows = await h.stack.daemon.orm.em.fork().execute<{ status: string }[]>('select status from withdrawals where uuid = ?', [uuid]);
  return rows[0]?.status;
}

describe('TON payouts count only what the chain proves', () => {
  it("a stranger's transfer with our query_id between signing and execution changes nothing: paid once, completed; valid_until bounded at seqno 0", async () => {
    const before = await h.chain.jettonBalance(payee);
    h.server.failNext('sendBoc', 1_000_000); // our signed message waits
    const w = await h.withdraw(payee, '10');
    const meta = await eventually(async () => (await h.signedRow(w.uuid)).meta ?? undefined, 15_000, 'the payout signed');
    // The first payout of the wallet (seqno 0, deploying it) still expires: no message valid until 2106.
    expect(Number(meta.nonce)).toBe(0);
    expect(Number(meta.validUntil)).toBeLessThan(h.chain.now + 3600);
    const attack = await h.chain.strangerTransfer(ourJettonWallet, BigInt(String(meta.queryId)), payee, 9_800_000n);
    expect(attack.some((tx) => tx.description.type === 'generic' && tx.description.computePhase.type === 'vm' && !tx.description.computePhase.success)).toBe(true);
    await new Promise((r) => setTimeout(r, 800)); // several status polls see the stranger's refused transfer
    expect(await currentStatus(w.uuid)).toBe('processing');
    h.server.failNext('sendBoc', 0);
    const seen = await statusesUntil(w.uuid, 'completed');
    expect(seen.at(-1)).toBe('completed');
    await h.chain.inclusion!.settled();
    expect(await h.chain.jettonBalance(payee)).toBe(before + 9_800_000n);
    expect(await balance(h.stack, h.m)).toEqual({ available: '90', held: '0' });
    await expectLedgerExact(h.stack.daemon.orm);
  });

  it('a payee whose jetton wallet refuses the jettons: the bounce fails the withdrawal (never completed first), the hold released once', async () => {
    const refusing = await h.chain.refusingJettonWallet(refuser);
    const ours = await h.chain.jettonBalance(h.service);
    const before = await balance(h.stack, h.m);
    const w = await h.withdraw(refuser, '5');
    const seen = await statusesUntil(w.uuid, 'failed');
    expect(seen).not.toContain('completed');
    expect(seen.at(-1)).toBe('failed');
    await h.chain.inclusion!.settled();
    // A real bounce on the chain: the payee's jetton wallet threw, the jettons came back to ours.
    const payeeTxs = await h.chain.transactionsOf(refusing);
    expect(payeeTxs.some((tx) => tx.description.type === 'generic' && tx.description.computePhase.type === 'vm' && tx.description.computePhase.exitCode === 707)).toBe(true);
    expect(await h.chain.jettonBalance(h.service)).toBe(ours);
    expect(await balance(h.stack, h.m)).toEqual(before);
    const failed = await waitForWithdrawal(h.stack, h.m, w.uuid, 'failed');
    expect(failed.failure_reason).toMatch(/reverted_on_chain/);
    // Released exactly once: one release journal for this withdrawal, the books exact.
    await new Promise((r) => setTimeout(r, 500));
    expect(await balance(h.stack, h.m)).toEqual(before);
    await expectLedgerExact(h.stack.daemon.orm);
  });

  it('a seqno run by another message of our key (an operator with the exported key): needs an operator, never pending forever; a reject releases the hold', async () => {
    const before = await balance(h.stack, h.m);
    const payeeBefore = await h.chain.jettonBalance(payee);
    h.server.failNext('sendBoc', 1_000_000);
    const w = await h.withdraw(payee, '4');
    const meta = await eventually(async () => (await h.signedRow(w.uuid)).meta ?? undefined, 15_000, 'the payout signed');
    // The operator sends 1 TON to themself at that seqno through another provider.
    const seed = Buffer.from(new TonCodec({ mnemonic: TEST_MNEMONIC }).serviceWallet().privateKeyHex, 'hex');
    const keyPair = keyPairFromSeed(seed);
    const wallet = WalletContractV4.create({ workchain: 0, publicKey: keyPair.publicKey });
    const operator = (await h.chain.blockchain.treasury('operator')).address;
    const body = wallet.createTransfer({
      seqno: Number(meta.nonce),
      secretKey: keyPair.secretKey,
      timeout: h.chain.now + 60,
      sendMode: SendMode.PAY_GAS_SEPARATELY,
      messages: [internal({ to: operator, value: toNano('1'), bounce: false })],
    });
    await h.chain.blockchain.sendMessage({ info: { type: 'external-in', dest: wallet.address, importFee: 0n }, body });
    h.chain.seqno += 1;
    h.server.failNext('sendBoc', 0);
    const row = await eventually(
      async () => {
        const r = await h.signedRow(w.uuid);
        return r.failureReason === 'needs_operator: payout_nonce_consumed' ? r : undefined;
      },
      20_000,
      'the withdrawal waiting for an operator',
    );
    expect(row.failureReason).toBe('needs_operator: payout_nonce_consumed');
    expect(await currentStatus(w.uuid)).toBe('processing');
    expect((await balance(h.stack, h.m)).held).toBe('4');
    const rejected = await rpc<{ status: string }>((cb) => h.stack.clients.operator.rejectWithdrawal({ uuid: w.uuid, reason: 'seqno used by hand' }, h.stack.operator, cb));
    expect(rejected.status).toBe('rejected');
    expect(await balance(h.stack, h.m)).toEqual(before);
    expect(await h.chain.jettonBalance(payee)).toBe(payeeBefore);
    await expectLedgerExact(h.stack.daemon.orm);
  });

  it('a jetton wallet is no payee: refused when whitelisted and when paid, naming its owner', async () => {
    // The payee's jetton wallet exists (test 1 paid it): whitelisting it is refused, naming the payee.
    const payeeJw = await h.chain.jettonWallet(payee);
    const owner = payee.toString({ bounceable: false, urlSafe: true });
    await expect(whitelist(stackRpcs(h.stack), h.m.merchantId, 'TON', payeeJw.toString())).rejects.toThrow(/payee_is_jetton_wallet|is a jetton wallet/);
    await expect(whitelist(stackRpcs(h.stack), h.m.merchantId, 'TON', payeeJw.toString())).rejects.toThrow(owner);
    // An address listed before it became a jetton wallet (not deployed then): the payout is refused, released.
    const other = (await h.chain.blockchain.treasury('other')).address;
    const otherJw = await h.chain.jettonWallet(other);
    await whitelist(stackRpcs(h.stack), h.m.merchantId, 'TON', otherJw.toString());
    await backdateWhitelist(h.stack.databaseUrl, h.m.merchantId);
    await h.chain.pay({ to: other, amount: 1_000_000n });
    const before = await balance(h.stack, h.m);
    const w = await h.withdraw(otherJw, '3');
    const failed = await waitForWithdrawal(h.stack, h.m, w.uuid, 'failed', 20_000);
    expect(failed.failure_reason).toMatch(/payee_is_jetton_wallet/);
    expect(failed.failure_reason).toContain(other.toString({ bounceable: false, urlSafe: true }));
    expect(await balance(h.stack, h.m)).toEqual(before);
    expect(await h.chain.jettonBalance(otherJw)).toBe(0n);
    await expectLedgerExact(h.stack.daemon.orm);
  });
});
