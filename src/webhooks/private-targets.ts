import type { Logger } from 'pino';
import type { NetworkCode } from '../domain/networks';

export const PRIVATE_TARGETS_WARNING = 'WEBHOOK_ALLOW_PRIVATE_TARGETS=1: the webhook address guard is OFF (loopback/private targets allowed); for local testing only';

/**
 * Start-up line while the address guard is lifted. CHAIN_MODE=live with the flag never gets here
 * (loadConfig refuses it); but a network with <CODE>_RPC_URL runs on its real chain even on a
 * devnet daemon (tests against a local hardhat node rely on that), so such a daemon gets an
 * error-level line naming the live networks instead of the devnet warning.
 */
export function logPrivateTargets(logger: Logger, liveNetworks: readonly NetworkCode[]): void {
  if (liveNetworks.length === 0) {
    logger.warn(PRIVATE_TARGETS_WARNING);
    return;
  }
  logger.error({ liveNetworks }, `${PRIVATE_TARGETS_WARNING}, but these networks run live: ${liveNetworks.join(', ')}`);
}
