#!/usr/bin/env node
// npm run test:reliability [-- --long] [-- --seed N] [jest args...]
// Runs test/reliability/ alone. --long: the release-check mode (100,000 fuzz cases, hundreds of
// kills, longer fault windows; hours, not minutes); --seed replays a run. Figures go to
// $CHAINPAY_RELIABILITY_FIGURES (default <tmp>/chainpay-reliability-figures.json).
'use strict';
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const args = process.argv.slice(2);
const env = { ...process.env };
const jestArgs = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--long') env.CHAINPAY_RELIABILITY_LONG = '1';
  else if (args[i] === '--seed') env.CHAINPAY_RELIABILITY_SEED = args[++i];
  else jestArgs.push(args[i]);
}
const jest = path.join(__dirname, '..', 'node_modules', 'jest', 'bin', 'jest.js');
const result = spawnSync(process.execPath, [jest, '--runInBand', 'test/reliability', ...jestArgs], { stdio: 'inherit', env, cwd: path.join(__dirname, '..') });
process.exit(result.status ?? 1);
