import { Invoice } from '../../store/entities';
import type { LoadedInvoice } from './invoices';
import { OpenInvoiceReads } from './open-invoice-reads';

function loaded(uuid: string, status = 'pending', open = true): LoadedInvoice {
  const row = Object.assign(Object.create(Invoice.prototype) as Invoice, { uuid, status, open, merchantId: 'm1' });
  return { row, payments: [] };
}

/** A load() that counts its calls and resolves when told to. */
function loader(value: () => LoadedInvoice | null) {
  let calls = 0;
  const pending: Array<() => void> = [];
  return {
    calls: () => calls,
    load: () => {
      calls++;
      return new Promise<LoadedInvoice | null>((resolve) => pending.push(() => resolve(value())));
    },
    release: () => pending.splice(0).forEach((r) => r()),
  };
}

describe('OpenInvoiceReads', () => {
  const open = new Set(['a', 'b', 'c']);
  const reads = (): OpenInvoiceReads => new OpenInvoiceReads((uuid) => open.has(uuid), 2);

  it('keeps an open invoice read once; a commit makes the next read load again', async () => {
    const r = reads();
    let status = 'pending';
    const l = loader(() => loaded('a', status));
    const first = r.read('a', l.load);
    l.release();
    expect((await first)!.row.status).toBe('pending');
    expect((await r.read('a', l.load))!.row.status).toBe('pending');
    expect(l.calls()).toBe(1);

    status = 'confirming';
    r.invalidate('a');
    const again = r.read('a', l.load);
    l.release();
    expect((await again)!.row.status).toBe('confirming');
    expect(l.calls()).toBe(2);
  });

  it('a read in flight when its invoice commits is answered but not kept', async () => {
    const r = reads();
    let status = 'pending';
    const l = loader(() => loaded('a', status));
    const inFlight = r.read('a', l.load);
    r.invalidate('a'); // the commit lands while the read waits for the database
    status = 'confirming';
    l.release();
    await inFlight;
    expect(r.size()).toBe(0);
    const next = r.read('a', l.load);
    l.release();
    expect((await next)!.row.status).toBe('confirming');
    expect(l.calls()).toBe(2);
  });

  it('keeps nothing of an invoice without an actor here, a closed row or a missing one', async () => {
    const r = reads();
    for (const [uuid, value] of [['z', loaded('z')], ['b', loaded('b', 'paid', false)], ['c', null]] as const) {
      const l = loader(() => value);
      const p = r.read(uuid, l.load);
      l.release();
      await p;
    }
    expect(r.size()).toBe(0);
  });

  it('holds at most `max` invoices, dropping the least recently read', async () => {
    const r = reads();
    const read = async (uuid: string): Promise<number> => {
      const l = loader(() => loaded(uuid));
      const p = r.read(uuid, l.load);
      l.release();
      await p;
      return l.calls();
    };
    await read('a');
    await read('b');
    expect(await read('a')).toBe(0); // kept; now the most recent
    await read('c'); // drops b
    expect(r.size()).toBe(2);
    expect(await read('a')).toBe(0);
    expect(await read('b')).toBe(1);
  });
});
