import { randomBytes } from 'node:crypto';
import { createActor, fromPromise } from 'xstate';
import type { Clock } from '../../domain/clock';
import type { CheckPayoutOutput, PayoutActorInput, SignPayoutInput, WithdrawalMachineContext, WithdrawalSignedPayout } from '../../domain/withdrawal-context';
import { withdrawalMachine } from '../../domain/withdrawal-machine';

/** Stand-ins that never settle: starting the machine with them computes a first snapshot and does nothing. */
const inert = withdrawalMachine.provide({
  actors: {
    signPayout: fromPromise<WithdrawalSignedPayout, SignPayoutInput>(() => new Promise(() => undefined)),
    broadcastPayout: fromPromise<void, PayoutActorInput>(() => new Promise(() => undefined)),
    checkPayout: fromPromise<CheckPayoutOutput, PayoutActorInput>(() => new Promise(() => undefined)),
  },
});

/**
 * Stand-ins for the three per-withdrawal values of a first snapshot: strings no real value can be
 * (a NUL character and a random tag), so each occurrence in the JSON is theirs.
 */
const PLACEHOLDER_TAG = randomBytes(8).toString('hex');
export const PLACEHOLDER = {
  uuid: `\u0000uuid:${PLACEHOLDER_TAG}`,
  address: `\u0000address:${PLACEHOLDER_TAG}`,
  netPayout: `\u0000netPayout:${PLACEHOLDER_TAG}`,
} as const;
export const SNAPSHOT_TEMPLATES_MAX = 1_000;

/** What a new actor persists first (created -> review | processing.signing), as plain JSON data. */
export function persistedInitialSnapshot(context: WithdrawalMachineContext, clock: Clock): unknown {
  const actor = createActor(inert, { input: context, clock });
  actor.start();
  const snapshot = JSON.parse(JSON.stringify(actor.getPersistedSnapshot())) as unknown;
  actor.stop();
  return snapshot;
}

/**
 * The snapshot's JSON split around the placeholders: [text, field, text, field, ..., text], the
 * fields being keys of PLACEHOLDER. Null (no template: computed every time) when a placeholder
 * shows up anywhere but as a whole JSON string, e.g. inside a longer string or in a key.
 */
export function snapshotTemplate(snapshot: unknown): string[] | null {
  const json = JSON.stringify(snapshot);
  const quoted = new Map(Object.entries(PLACEHOLDER).map(([field, value]) => [JSON.stringify(value), field]));
  const parts: string[] = [];
  let rest = json;
  for (;;) {
    let at = -1;
    let found = '';
    for (const q of quoted.keys()) {
      const i = rest.indexOf(q);
      if (i >= 0 && (at < 0 || i < at)) [at, found] = [i, q];
    }
    if (at < 0) break;
    // A value, not a key: followed by , } or ] (keys are followed by a colon).
    const next = rest[at + found.length];
    if (next !== ',' && next !== '}' && next !== ']') return null;
    parts.push(rest.slice(0, at), quoted.get(found)!);
    rest = rest.slice(at + found.length);
  }
  parts.push(rest);
  if (parts.join('').includes(PLACEHOLDER_TAG)) return null;
  return parts;
}
