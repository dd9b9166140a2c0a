/**
 * `npx tsx test/bench/tron-calls.ts`: scenario 9 of `npm run bench` alone (test/bench/scenarios/tron-calls.ts),
 * printing one JSON line per watched-set size.
 */
import { measure } from './scenarios/tron-calls';

measure([1, 1_000, 100_000])
  .then((samples) => {
    for (const s of samples) console.log(JSON.stringify(s));
  })
  .catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
