'use strict';
// Entry of the SOLANA block thread (block-thread.ts starts it by this path). Built (dist/): the
// compiled block-worker-main.js beside it. In the repository (tests, tsx): the TypeScript source
// through tsx's CommonJS hook, as src/chains/derivation/worker.js does.
const fs = require('node:fs');
const path = require('node:path');

if (fs.existsSync(path.join(__dirname, 'block-worker-main.js'))) {
  require('./block-worker-main.js');
} else {
  require('tsx/cjs');
  require('./block-worker-main.ts');
}
