import { randomBytes } from 'node:crypto';

/** "evt_" + 24 random hex characters: the webhook-id of Standard Webhooks and the event's key. */
export function newEventId(): string {
  return `evt_${randomBytes(12).toString('hex')}`;
}
