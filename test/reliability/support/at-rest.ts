import { Client } from 'pg';

/** Nothing in flight: no payment or invoice confirming, no withdrawal processing, no devnet payout waiting for a block. */
export async function atRest(url: string): Promise<boolean> {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    const r = await c.query<{ busy: string }>(
      `select (select count(*) from invoice_payments where state = 'confirming') + (select count(*) from invoices where status = 'confirming')
            + (select count(*) from withdrawals where status = 'processing') + (select count(*) from devnet_mempool) as busy`,
    );
    return Number(r.rows[0]!.busy) === 0;
  } finally {
    await c.end();
  }
}
