/**
 * Start-up warning while the webhook address guard is lifted (WEBHOOK_ALLOW_PRIVATE_TARGETS=1).
 * Devnet only: loadConfig refuses the flag in live mode, and devnet and live never mix in a daemon.
 */
export const PRIVATE_TARGETS_WARNING = 'WEBHOOK_ALLOW_PRIVATE_TARGETS=1: the webhook address guard is OFF (loopback/private targets allowed); for local testing only';
