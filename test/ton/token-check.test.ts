import { FamilyConfigError } from '../../src/chains/errors';
import { TonJettonDecimalsError } from '../../src/chains/ton/token-errors';
import { tonAdapter } from './support/adapter';
import { deployMinter, offchainContent, onchainContent } from './support/jetton-content';
import { SandboxChain } from './support/sandbox-chain';
import { startToncenter, type ToncenterServer } from './support/toncenter-server';

let chain: SandboxChain;
let server: ToncenterServer;

beforeAll(async () => {
  chain = await SandboxChain.create();
  server = await startToncenter(chain);
}, 60_000);

afterAll(async () => {
  await server?.close();
});

async function initError(master: string): Promise<unknown> {
  const adapter = tonAdapter(chain, server, { jettonMaster: master });
  try {
    await adapter.init();
    return null;
  } catch (error) {
    return error;
  } finally {
    await adapter.close();
  }
}

describe('TON init: the jetton master decimals (TEP-64 metadata)', () => {
  it('starts on a master whose on-chain metadata says 6 decimals', async () => {
    expect(await initError(chain.usdt.address.toString())).toBeNull();
  });

  it.each([
    ['9 decimals', onchainContent({ symbol: 'USD9', decimals: 9 }), '9'],
    ['no decimals on chain (TEP-64: 9)', onchainContent({ symbol: 'USDX', uri: 'https://example.invalid/x.json' }), '9'],
    ['off-chain metadata only', offchainContent('https://example.invalid/usdt.json'), 'unknown (metadata off chain only)'],
  ])('refuses a master with %s, naming TON_JETTON_MASTER (a config error: exit 78)', async (_case, content, actual) => {
    const minter = await deployMinter(chain.blockchain, chain.admin, content);
    chain.seqno += 1;
    const err = await initError(minter.address.toString());
    expect(err).toBeInstanceOf(TonJettonDecimalsError);
    expect(err).toBeInstanceOf(FamilyConfigError); // src/main.ts: FamilyConfigError -> exit 78
    expect(err).toMatchObject({ variable: 'TON_JETTON_MASTER', code: 'token_decimals_mismatch', expected: 6, actual });
    expect((err as Error).message).toContain('TON_JETTON_MASTER');
  });
});
