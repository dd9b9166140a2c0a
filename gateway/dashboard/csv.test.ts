import { invoicesCsv } from './csv';

describe('invoicesCsv', () => {
  it('quotes every cell, defuses formulas, and writes times in the named zone', () => {
    const csv = invoicesCsv(
      [
        {
          uuid: 'u-1',
          order_id: '=HYPERLINK("http://evil")',
          status: 'paid',
          network: 'TON',
          amount: '10',
          pay_amount: '10.1',
          received_amount: '10.1',
          currency: 'USDT',
          address: 'EQ"x',
          memo: undefined,
          tx_hash: undefined,
          created_at: '2026-07-01T22:30:00.000Z',
          paid_at: undefined,
        } as never,
      ],
      'Europe/Madrid',
    );
    const [header, row] = csv.split('\r\n');
    expect(header).toContain('"created_at (Europe/Madrid)"');
    expect(row).toBe('"u-1","\'=HYPERLINK(""http://evil"")","paid","TON","10","10.1","10.1","USDT","EQ""x","","","2026-07-02 00:30:00",""');
  });
});
