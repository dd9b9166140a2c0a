import { createHmac } from 'node:crypto';
import Decimal from 'decimal.js';
import { Client } from 'pg';
import { seededRandom } from '../support/seeded-random';
import { createMerchant, startStack, type MerchantCredentials, type Stack } from '../support/stack';
import { recordFigures } from './support/figures';
import { nextCase, type FuzzCase } from './support/fuzz-cases';
import { runSeed, scaled } from './support/long-mode';

/**
 * A seeded fuzzer of the REST surface through the real gateway and daemon: a few thousand cases in
 * `npm test`, 100,000 in long mode. For every case: never a 5xx; a request the spec refuses is
 * refused (4xx) and writes nothing; a request it allows is accepted and stored exactly as sent.
 * The webhook address guard is on (as in production), so private webhook URLs are refused.
 */
const CASES = Number(process.env.CHAINPAY_FUZZ_CASES ?? scaled(2000, 100_000));
const SEED = runSeed(7);
jest.setTimeout(scaled(300_000, 4 * 60 * 60_000));

/**
 * Tables a request could write; a refused request must leave every count as it was. What the
 * daemon writes by itself meanwhile is left out: the address reserve taking free addresses
 * (`reserved`), and invoices of a short lifetime expiring (allocated -> cooling, `invoice.expired`)
 * in a long run.
 */
const WRITES = `select (select count(*) from invoices) || '/' || (select count(*) from withdrawals) || '/' || (select count(*) from outbox_events where type <> 'invoice.expired') || '/' ||
  (select count(*) from ledger_entries) || '/' || (select count(*) from audit_log) || '/' || (select count(*) from deposit_addresses where state in ('allocated', 'cooling')) as w`;

describe(`the REST surface under ${CASES} seeded hostile requests (seed ${SEED})`, () => {
  let stack: Stack;
  let merchant: MerchantCredentials;
  let sql: Client;
  beforeAll(async () => {
    stack = await startStack({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: '0' } });
    merchant = await createMerchant(stack, { name: 'fuzzed shop' });
    sql = new Client({ connectionString: stack.databaseUrl });
    await sql.connect();
  });
  afterAll(async () => {
    await sql?.end();
    await stack?.stop();
  });

  it('never answers 5xx, never accepts what it must refuse, writes nothing when it refuses', async () => {
    const random = seededRandom(SEED);
    const networks = (await (await fetch(`${stack.baseUrl}/v1/networks`)).json()) as { networks: { code: string; min_invoice: string }[] };
    const world = { minInvoice: new Map(networks.networks.map((n) => [n.code, n.min_invoice])), invoiceUuids: [] as string[] };
    const failures: { case: string; seedIndex: number; status: number; why: string; body: string; sent: string }[] = [];
    const tally = { accepted: 0, refused: 0 };
    let run = 0; // cases sent (fewer than CASES when 25 failures stop the run)
    for (let i = 0; i < CASES; i++) {
      run = i + 1;
      const c = nextCase(random, world);
      const before = await writes(sql);
      const res = await send(stack, merchant, c);
      const after = await writes(sql);
      const fail = (why: string): void => {
        failures.push({ case: `${c.method} ${c.path.slice(0, 80)} ${c.name}`, seedIndex: i, status: res.status, why, body: res.text.slice(0, 300), sent: (c.body ?? '').slice(0, 300) });
      };
      // 503 pool_exhausted is a documented refusal (the address pool ran dry); any other 5xx is a defect.
      const poolExhausted = res.status === 503 && res.text.includes('"pool_exhausted"');
      if (res.status >= 500 && !poolExhausted) fail('5xx');
      else if (res.status >= 400) {
        tally.refused++;
        if (c.expect === 'accept') fail('refused a request the spec allows');
        if (before !== after) fail(`refused but wrote (${before} -> ${after})`);
        if (!/^\{.*"error"/s.test(res.text) && c.method !== 'HEAD') fail('an error without a JSON error body');
      } else {
        tally.accepted++;
        if (c.expect === 'refuse') fail('accepted a request it must refuse');
        if (c.path === '/v1/invoices' && c.method === 'POST') {
          const body = JSON.parse(res.text) as Record<string, unknown>;
          if (typeof body.uuid === 'string') world.invoiceUuids.push(body.uuid);
          const why = res.status === 201 ? echoMismatch(c, body, res.text) : null;
          if (why) fail(why);
        }
      }
      if (failures.length >= 25) break;
    }
    recordFigures('fuzz', { seed: SEED, cases: run, ...tally, violations: failures.length });
    expect(failures).toEqual([]);
    // The sample exercised both sides (a fuzzer refused everything would prove nothing).
    expect(tally.accepted).toBeGreaterThan(CASES / 10);
    expect(tally.refused).toBeGreaterThan(CASES / 10);
  });
});

async function writes(sql: Client): Promise<string> {
  return (await sql.query<{ w: string }>(WRITES)).rows[0]!.w;
}

async function send(stack: Stack, m: MerchantCredentials, c: FuzzCase): Promise<{ status: number; text: string }> {
  const signedBody = c.signing === 'other-body' ? `${c.body ?? ''} ` : (c.body ?? '');
  const headers: Record<string, string> = {};
  if (c.signing !== 'none') {
    headers['X-Service-Key'] = m.apiKey;
    headers['X-Service-Signature'] = c.signing === 'wrong' ? 'ab'.repeat(32) : createHmac('sha256', m.apiSecret).update(signedBody).digest('hex');
  }
  if (c.contentType) headers['Content-Type'] = c.contentType;
  try {
    const res = await fetch(stack.baseUrl + c.path, { method: c.method, headers, body: c.body === undefined || c.method === 'GET' ? undefined : c.body });
    return { status: res.status, text: await res.text() };
  } catch (error) {
    // fetch refuses some requests itself (a path it cannot send): not the server's answer.
    return { status: 400, text: `{"error":{"code":"client_refused","message":${JSON.stringify(String(error))}}}` };
  }
}

/** What an accepted creation must echo: the text fields exactly, the amount as a decimal, metadata numbers as written. */
function echoMismatch(c: FuzzCase, body: Record<string, unknown>, text: string): string | null {
  for (const [field, sent] of Object.entries(c.echo ?? {})) {
    if (field === 'amount') {
      if (typeof sent === 'string' && !new Decimal(sent).eq(String(body.amount))) return `amount ${sent} came back as ${String(body.amount)}`;
    } else if (field in body && body[field] !== sent) return `${field} ${JSON.stringify(sent)} came back as ${JSON.stringify(body[field])}`;
  }
  if (c.metadata) for (const literal of c.metadata.match(/-?\d+(\.\d+)?([eE][+-]?\d+)?/g) ?? []) if (!text.includes(literal)) return `metadata number ${literal} did not come back as written`;
  return null;
}
