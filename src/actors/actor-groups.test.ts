import { createActor, setup, SimulatedClock } from 'xstate';
import { ActorGroups } from './actor-groups';

/** A machine with a delayed transition, a final state reached on FINISH and an action that can throw. */
const machine = setup({
  types: { events: {} as { type: 'FINISH' } | { type: 'BOOM' } },
  actions: {
    boom: () => {
      throw new Error('boom');
    },
  },
}).createMachine({
  initial: 'waiting',
  states: {
    waiting: { after: { 1000: 'late' }, on: { FINISH: 'finished', BOOM: { actions: 'boom' } } },
    late: {},
    finished: { type: 'final' },
  },
});

function start(groups: ActorGroups, clock: SimulatedClock) {
  return createActor(machine, { clock, parent: groups.next() }).start();
}

describe('ActorGroups', () => {
  it('puts `size` actors in one system, then starts the next supervisor', () => {
    const clock = new SimulatedClock();
    const groups = new ActorGroups(clock, 3);
    const actors = Array.from({ length: 7 }, () => start(groups, clock));
    const systems = new Set(actors.map((a) => a.system));
    expect(systems.size).toBe(3);
    expect(actors[0]!.system).toBe(actors[2]!.system);
    expect(actors[2]!.system).not.toBe(actors[3]!.system);
  });

  it("delayed events run on the supervisor's clock; stop() cancels them", () => {
    const clock = new SimulatedClock();
    const groups = new ActorGroups(clock, 4);
    const kept = start(groups, clock);
    const stopped = start(groups, clock);
    ActorGroups.stop(stopped);
    expect(stopped.getSnapshot().status).toBe('stopped');
    clock.increment(1000);
    expect(kept.getSnapshot().value).toBe('late');
    expect(stopped.getSnapshot().value).toBe('waiting');
  });

  it('a child that finishes or fails leaves its supervisor able to stop the others', () => {
    const clock = new SimulatedClock();
    const groups = new ActorGroups(clock, 4);
    const finishing = start(groups, clock);
    const failing = start(groups, clock);
    const errors: unknown[] = [];
    failing.subscribe({ error: (err) => errors.push(err) });
    const other = start(groups, clock);
    finishing.send({ type: 'FINISH' });
    failing.send({ type: 'BOOM' });
    expect(finishing.getSnapshot().status).toBe('done');
    expect(errors).toHaveLength(1);
    ActorGroups.stop(finishing); // already done: nothing happens
    ActorGroups.stop(other);
    expect(other.getSnapshot().status).toBe('stopped');
    clock.increment(1000);
    expect(other.getSnapshot().value).toBe('waiting');
  });

  it('an actor without a supervisor is stopped directly', () => {
    const actor = createActor(machine).start();
    ActorGroups.stop(actor);
    expect(actor.getSnapshot().status).toBe('stopped');
  });
});
