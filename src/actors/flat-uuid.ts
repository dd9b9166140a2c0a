import { randomUUID } from 'node:crypto';

/**
 * A random (v4) uuid as ONE flat string. `crypto.randomUUID()` builds its result by concatenation,
 * which V8 keeps as a tree of ~14 cons strings (~500 bytes) until something flattens it; an open
 * invoice or withdrawal keeps its uuid for as long as its actor lives (in its context, its
 * snapshot and the actor maps), so 100,000 of them held ~1.3 million such objects for the
 * collector to trace. toLowerCase() flattens it (it is lower-case already, so it is unchanged).
 */
export function flatUuid(): string {
  return randomUUID().toLowerCase();
}
