import { createActor } from 'xstate';
import type { InvoiceMachineContext } from '../../src/domain/invoice-context';
import type { InvoiceMachineEvent } from '../../src/domain/invoice-events';
import { invoiceMachine } from '../../src/domain/invoice-machine';

/**
 * One event through the invoice machine from a context at rest (its state is the context's status):
 * the context it leaves. Timers are not run (the actor is stopped at once); the events' `at` moves time.
 */
export function stepInvoice(ctx: InvoiceMachineContext, event: InvoiceMachineEvent): InvoiceMachineContext {
  const actor = createActor(invoiceMachine, { input: ctx }).start();
  try {
    actor.send(event);
    return actor.getSnapshot().context;
  } finally {
    actor.stop();
  }
}
