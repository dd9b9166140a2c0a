import type { MikroORM } from '@mikro-orm/postgresql';
import { Address } from '@ton/core';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database';
import { createAddressCodec } from '../../chains/codecs';
import { DevnetAdapter } from '../../chains/devnet/adapter';
import type { ChainAdapter } from '../../chains/types';
import type { NetworkCode, NetworkSettings } from '../../domain/networks';
import { openDatabase } from '../../store/orm';
import { DaemonClock } from '../daemon-clock';
import { AddressForms, Whitelist } from './whitelist';

/** Whitelist.judge: the rows of a merchant, normalized once, judged for any form of an input address. */
describe('whitelist verdicts over a batch', () => {
  let db: TestDatabase;
  let orm: MikroORM;
  let whitelist: Whitelist;
  const clock = new DaemonClock();
  const codecs = { POLYGON: createAddressCodec('POLYGON', {}), TON: createAddressCodec('TON', {}), TRC20: createAddressCodec('TRC20', {}) };
  const adapters = new Map<NetworkCode, ChainAdapter>(
    (['POLYGON', 'TON', 'TRC20'] as const).map((network) => [network, new DevnetAdapter({ network, codec: codecs[network], clock, blockIntervalMs: 0, finalityDepth: 3 })]),
  );
  const net = (code: NetworkCode) => ({ code }) as NetworkSettings;

  beforeAll(async () => {
    db = await createTestDatabase('cp_wdwl');
    orm = await openDatabase({ clientUrl: db.url });
    whitelist = new Whitelist({ orm, clock, adapters });
  });
  afterAll(async () => {
    await orm?.close();
    await db?.drop();
  });

  it('matches an address in any of its forms, refuses one in cooldown or not listed, ignores stored rows that are not addresses', () => {
    const now = clock.now();
    const evm = codecs.POLYGON.sampleAddress('wl:evm');
    const ton = codecs.TON.sampleAddress('wl:ton');
    const tonRaw = Address.parse(ton).toRawString();
    const tronListed = codecs.TRC20.sampleAddress('wl:tron');
    const later = now.getTime() + 3_600_000;
    const judge = whitelist.judge(
      [
        { network: 'POLYGON', address: 'not-an-address', usable_ms: 0 },
        { network: 'POLYGON', address: evm.toLowerCase(), usable_ms: now.getTime() - 1 },
        { network: 'TON', address: tonRaw, usable_ms: later },
        { network: 'TRC20', address: tronListed, usable_ms: now.getTime() - 1 },
        { network: 'SOLANA', address: 'no adapter here', usable_ms: 0 },
      ],
      now,
    );
    expect(judge(net('POLYGON'), evm)).toBeNull(); // checksummed input, lowercase row
    expect(judge(net('POLYGON'), evm.toLowerCase())).toBeNull();
    expect(judge(net('TON'), ton)).toMatchObject({ code: 'address_in_cooldown', field: 'address', details: { usable_at: new Date(later).toISOString() } });
    expect(judge(net('TON'), Address.parse(ton).toString({ bounceable: false }))).toMatchObject({ code: 'address_in_cooldown' });
    expect(judge(net('TRC20'), tronListed)).toBeNull();
    expect(judge(net('TRC20'), codecs.TRC20.sampleAddress('wl:other'))).toMatchObject({ code: 'address_not_whitelisted', field: 'address' });
    // Inputs reach the whitelist validated; one that is not is refused as such (thrown, as before).
    expect(() => judge(net('POLYGON'), tronListed)).toThrow(expect.objectContaining({ code: 'invalid_address' }));
    expect(() => judge(net('SOLANA'), 'x')).toThrow(expect.objectContaining({ code: 'unknown_network' }));
  });

  it("AddressForms gives the adapter's own verdicts and forms, first use and remembered", () => {
    const forms = new AddressForms(adapters);
    const inputs: [NetworkCode, string][] = [
      ['POLYGON', codecs.POLYGON.sampleAddress('f1')],
      ['POLYGON', codecs.POLYGON.sampleAddress('f1').toUpperCase().replace('0X', '0x')],
      ['TON', codecs.TON.sampleAddress('f2')],
      ['TRC20', codecs.TRC20.sampleAddress('f3')],
      ['TRC20', `${codecs.TRC20.sampleAddress('f3').slice(0, -1)}1`],
      ['TRC20', ''],
      ['SOLANA', 'anything'],
    ];
    for (let round = 0; round < 2; round++) {
      for (const [network, address] of inputs) {
        const adapter = adapters.get(network);
        const expected = adapter?.isValidAddress(address) ? adapter.normalizeAddress(address) : null;
        expect(forms.form(network, address)).toBe(expected);
        expect(forms.isValid(network, address)).toBe(expected !== null);
      }
    }
  });
});
