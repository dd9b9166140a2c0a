import { formatAmount, toDecimal } from '../domain/decimal';
import type { JournalInput } from '../store/repos/ledger';
import { coldAccount, depositsAccount, fundingAccount, gasDepositsAccount, gasFeesAccount, gasFundingAccount, gasHotAccount, hotAccount, inTransitAccount } from '../store/repos/ledger-accounts';

/**
 * The journals of one sweep (accounts and signs: store/repos/ledger-accounts.ts). Each reference
 * names one business event of sweep `id`, so a replay after a crash books nothing twice. USDT and the
 * gas coin never share a journal (different units). No merchant account appears in any of them: a
 * sweep moves the operator's money between its own accounts, merchants' balances never wait for it.
 *
 * USDT, two-phase:
 * - pending at broadcast: deposits → in transit, the exact amount signed;
 * - posted at finality: in transit → hot (or cold, for the overflow);
 * - voided when the transfer reverted (or can never execute): in transit → deposits.
 * Gas coin, from receipts:
 * - top-up mined: hot gas → the address's gas (the amount sent) and → the fee expense (its own fee);
 * - transfer mined or reverted: the address's gas → the fee expense (what the receipt charged).
 */
export interface SweepRef {
  readonly id: string;
  readonly network: string;
}

const neg = (amount: string): string => formatAmount(toDecimal(amount).negated());

export function pendingJournal(s: SweepRef, amount: string): JournalInput {
  return {
    reference: `sweep:${s.id}:pending`,
    kind: 'sweep_pending',
    lines: [
      { account: depositsAccount(s.network), amount },
      { account: inTransitAccount(s.network), amount: neg(amount) },
    ],
  };
}

export function postedJournal(s: SweepRef, amount: string, target: 'hot' | 'cold'): JournalInput {
  return {
    reference: `sweep:${s.id}:posted`,
    kind: 'sweep_posted',
    lines: [
      { account: inTransitAccount(s.network), amount },
      { account: target === 'hot' ? hotAccount(s.network) : coldAccount(s.network), amount: neg(amount) },
    ],
  };
}

export function voidedJournal(s: SweepRef, amount: string): JournalInput {
  return {
    reference: `sweep:${s.id}:voided`,
    kind: 'sweep_voided',
    lines: [
      { account: inTransitAccount(s.network), amount },
      { account: depositsAccount(s.network), amount: neg(amount) },
    ],
  };
}

export function topUpJournal(s: SweepRef, sent: string, fee: string): JournalInput {
  return {
    reference: `sweep:${s.id}:topup`,
    kind: 'sweep_topup',
    lines: [
      { account: gasHotAccount(s.network), amount: formatAmount(toDecimal(sent).plus(fee)) },
      { account: gasDepositsAccount(s.network), amount: neg(sent) },
      { account: gasFeesAccount(s.network), amount: neg(fee) },
    ],
  };
}

export function transferFeeJournal(s: SweepRef, fee: string): JournalInput {
  return {
    reference: `sweep:${s.id}:fee`,
    kind: 'sweep_fee',
    lines: [
      { account: gasDepositsAccount(s.network), amount: fee },
      { account: gasFeesAccount(s.network), amount: neg(fee) },
    ],
  };
}

/**
 * What the operator put into the hot wallet, booked once per network (`treasury:<NET>:opening`) when
 * the treasury first sees it: its token and gas-coin balances against the owner's funding, so the
 * hot accounts then equal what the chain holds.
 */
export function openingJournals(network: string, token: string, gas: string): JournalInput[] {
  return [
    {
      reference: `treasury:${network}:opening`,
      kind: 'treasury_opening',
      lines: [
        { account: hotAccount(network), amount: neg(token) },
        { account: fundingAccount(network), amount: token },
      ],
    },
    {
      reference: `treasury:${network}:opening-gas`,
      kind: 'treasury_opening',
      lines: [
        { account: gasHotAccount(network), amount: neg(gas) },
        { account: gasFundingAccount(network), amount: gas },
      ],
    },
  ];
}
