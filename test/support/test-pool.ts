/**
 * A smaller address pool than production's (50 free, batches of 200): a test's stack derives 5 × 20
 * addresses at start instead of 5 × 200 (about a second per start). Refills on demand and the bounded
 * wait for an address still run as in production; tests about the pool set their own sizes.
 */
export const TEST_POOL = { ADDRESS_POOL_MIN_FREE: '10', ADDRESS_POOL_BATCH: '20' } as const;
