import { createActor, type ActorLogic, type AnyActorRef, type EventObject, type Snapshot } from 'xstate';
import type { Clock } from '../domain/clock';

/** Children per supervisor: bounds what XState scans when one of them stops (see ActorGroups). */
export const ACTOR_GROUP_SIZE = 64;

interface StopChild extends EventObject {
  type: 'chainpay.stopChild';
  child: AnyActorRef;
}

/**
 * A supervisor's logic (XState custom actor logic): it stops a child when asked, since XState lets
 * only the parent stop a child, and ignores everything its children report (done, error), which
 * whoever created them observes by subscribing. It never changes, never ends and never fails.
 */
const supervisorLogic: ActorLogic<Snapshot<undefined>, StopChild | EventObject> = {
  transition: (snapshot, event, scope) => {
    if (event.type === 'chainpay.stopChild') scope.stopChild((event as StopChild).child);
    return snapshot;
  },
  getInitialSnapshot: () => ({ status: 'active', output: undefined, error: undefined }),
  getPersistedSnapshot: (snapshot) => snapshot,
};

/**
 * Supervisors for many small actors. XState gives every actor created without a parent its own
 * actor system (a scheduler, registries and about twenty closures): with 100,000 open invoices that
 * was ~1.9 KiB of heap per actor and a third of the time to rehydrate them (measured). An actor
 * created with `parent` joins its parent's system instead, so actors are created as children of a
 * supervisor, `size` per supervisor.
 *
 * Not one system for all of them: when an actor stops, XState cancels its delayed events by scanning
 * every delayed event of its system, so a system's size bounds the cost of each stop.
 *
 * Invariants: the supervisor's clock is the actors' clock (a system schedules its delayed events
 * on its root's clock); a supervisor holds no resources, and one whose children have all stopped is
 * garbage once `next()` moved on from it.
 */
export class ActorGroups {
  private current: AnyActorRef | null = null;
  private assigned = 0;

  constructor(
    private readonly clock: Pick<Clock, 'setTimeout' | 'clearTimeout'>,
    private readonly size: number = ACTOR_GROUP_SIZE,
  ) {}

  /** The supervisor to pass as `parent` to the next actor created. */
  next(): AnyActorRef {
    if (this.current === null || this.assigned >= this.size) {
      this.current = createActor(supervisorLogic, { clock: this.clock }).start();
      this.assigned = 0;
    }
    this.assigned++;
    return this.current;
  }

  /** Stop an actor created with a supervisor of ours as its parent (synchronously, as `stop()` does). */
  static stop(actor: AnyActorRef): void {
    const supervisor = actor._parent;
    if (supervisor === undefined) actor.stop();
    else supervisor.send({ type: 'chainpay.stopChild', child: actor } satisfies StopChild);
  }
}
