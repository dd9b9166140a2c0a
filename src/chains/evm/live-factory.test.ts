import { ConfigError, loadConfig } from '../../config/config';
import { NETWORK_FACTS } from '../../domain/networks';
import { evmLiveOptions } from './live-factory';

describe('evmLiveOptions: the chain id the RPC must serve', () => {
  it("defaults to the network's real chain id, so an RPC of another chain is refused at init", () => {
    const config = loadConfig({ POLYGON_RPC_URL: 'http://127.0.0.1:8545', BEP20_RPC_URL: 'http://127.0.0.1:8546', ARBITRUM_RPC_URL: 'http://127.0.0.1:8547' });
    const live = evmLiveOptions(config.networks);
    expect(live.POLYGON).toMatchObject({ expectedChainId: 137, confirmations: config.networks.POLYGON.requiredConfirmations });
    expect(live.BEP20).toMatchObject({ expectedChainId: NETWORK_FACTS.BEP20.chainId });
    expect(live.ARBITRUM).toMatchObject({ expectedChainId: 42161 });
  });

  it('<CODE>_CHAIN_ID overrides it (31337 for a hardhat node); a bad value stops start-up naming the variable', () => {
    const config = loadConfig({ POLYGON_RPC_URL: 'http://127.0.0.1:8545', POLYGON_CHAIN_ID: '31337' });
    expect(evmLiveOptions(config.networks).POLYGON).toMatchObject({ expectedChainId: 31337 });
    expect(() => loadConfig({ POLYGON_CHAIN_ID: 'polygon' })).toThrow(ConfigError);
    expect(() => loadConfig({ POLYGON_CHAIN_ID: '0' })).toThrow(/POLYGON_CHAIN_ID/);
  });
});
