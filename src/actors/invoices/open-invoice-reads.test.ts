import { Invoice } from '../../store/entities';
import type { LoadedInvoice } from './invoices';
import { OpenInvoiceReads } from './open-invoice-reads';

function loaded(uuid: string, status = 'pending', open = true): LoadedInvoice {
  const row = Object.assign(Object.create(Invoice.prototype) as Invoice, { uuid, status, open, merchantId: 'm1' });
  return { row, payments: [] };
}

/** A database read that counts its calls; `release()` lets a held one answer (a read in flight). */
function loader(value: () => LoadedInvoice | null) {
  let calls = 0;
  let release: () => void = () => undefined;
  return {
    calls: () => calls,
    load: async () => {
      calls++;
      return value();
    },
    held: () => {
      calls++;
      return new Promise<LoadedInvoice | null>((resolve) => (release = () => resolve(value())));
    },
    release: () => release(),
  };
}

describe('OpenInvoiceReads', () => {
  const open = new Set(['a', 'b', 'c']);
  const reads = (): OpenInvoiceReads => new OpenInvoiceReads((uuid) => open.has(uuid), 2);

  it('keeps an open invoice read once; a commit makes the next read load again', async () => {
    const r = reads();
    let status = 'pending';
    const l = loader(() => loaded('a', status));
    expect((await r.read('a', l.load))!.row.status).toBe('pending');
    expect((await r.read('a', l.load))!.row.status).toBe('pending');
    expect(l.calls()).toBe(1);

    status = 'confirming';
    r.invalidate('a');
    expect((await r.read('a', l.load))!.row.status).toBe('confirming');
    expect(l.calls()).toBe(2);
  });

  it('a read in flight when its invoice commits is answered but not kept', async () => {
    const r = reads();
    let status = 'pending';
    const l = loader(() => loaded('a', status));
    const inFlight = r.read('a', l.held);
    r.invalidate('a'); // the commit lands while the read waits for the database
    status = 'confirming';
    l.release();
    await inFlight;
    expect(r.size()).toBe(0);
    expect((await r.read('a', l.load))!.row.status).toBe('confirming');
    expect(l.calls()).toBe(2);
  });

  it('keeps nothing of an invoice without an actor here, a closed row or a missing one', async () => {
    const r = reads();
    await r.read('z', async () => loaded('z'));
    await r.read('b', async () => loaded('b', 'paid', false));
    await r.read('c', async () => null);
    expect(r.size()).toBe(0);
  });

  it('holds at most `max` invoices, dropping the least recently read', async () => {
    const r = reads();
    /** Database reads one more read of `uuid` needed: 0 when it was kept. */
    const read = async (uuid: string): Promise<number> => {
      const l = loader(() => loaded(uuid));
      await r.read(uuid, l.load);
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
