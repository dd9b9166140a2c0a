#!/usr/bin/env node
'use strict';
// `npm run build` (and `npm ci`, through `prepare`): compiles src/ and gateway/ with tsc into dist/
// (tsconfig.build.json; source maps beside the code), then copies what the compiled code reads by
// path relative to its own file, so that dist/ runs on its own with only the production
// dependencies installed (the Dockerfile's runtime stage holds dist/, package*.json, node_modules):
//   proto/                          src/grpc/server.ts loads the .proto files (reflection) from ../../proto
//   gateway/checkout/assets/        gateway/checkout/assets.ts serves them from ./assets
//   gateway/dashboard/assets/       gateway/dashboard/index.ts serves them from ./assets
//   src/cli/bin.js                  the package's bin (package.json "bin")
//   src/chains/derivation/worker.js the derivation thread's entry (derivation-thread.ts)
//   src/chains/solana/block-worker.js the SOLANA block thread's entry (block-thread.ts)
// The two .js bootstraps load the compiled sibling when there is one (dist/) and the TypeScript
// source through tsx otherwise (the repository, under Jest or tsx).
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const dist = path.join(root, 'dist');
/** Built here, then moved to dist/ in one rename: an interrupted build leaves the previous dist/ whole. */
const next = path.join(root, 'dist.next');
const COPIED = ['proto', 'gateway/checkout/assets', 'gateway/dashboard/assets', 'src/cli/bin.js', 'src/chains/derivation/worker.js', 'src/chains/solana/block-worker.js'];
/** Written last: its mtime is when dist/ was complete (test/support/dist.ts compares it with the sources). */
const STAMP = '.built';

// From scratch each time: no compiled file of a source that no longer exists.
fs.rmSync(next, { recursive: true, force: true });
const tsc = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', path.join(root, 'tsconfig.build.json'), '--outDir', next], { stdio: 'inherit' });
if (tsc.status !== 0) {
  process.stderr.write(`build: tsc failed (${tsc.status ?? tsc.signal})\n`);
  process.exit(1);
}
for (const rel of COPIED) fs.cpSync(path.join(root, rel), path.join(next, rel), { recursive: true });
fs.writeFileSync(path.join(next, STAMP), `${new Date().toISOString()}\n`);
fs.rmSync(dist, { recursive: true, force: true });
fs.renameSync(next, dist);
process.stdout.write('build: dist/ is ready\n');
