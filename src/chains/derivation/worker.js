'use strict';
// Entry of the address-derivation thread (derivation-thread.ts starts it by this path). Built
// (dist/): the compiled worker-main.js beside it, plain Node (the thread inherits the process's
// --enable-source-maps). In the repository (tests, tsx): the TypeScript source through tsx's
// CommonJS hook, as src/cli/bin.js does.
const fs = require('node:fs');
const path = require('node:path');

if (fs.existsSync(path.join(__dirname, 'worker-main.js'))) {
  require('./worker-main.js');
} else {
  require('tsx/cjs');
  require('./worker-main.ts');
}
