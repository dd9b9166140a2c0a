'use strict';
// Entry of the address-derivation thread (derivation-thread.ts): registers tsx's CommonJS hook so
// the TypeScript sources run as they are (no build step), as src/cli/bin.js does.
require('tsx/cjs');
require('./worker-main.ts');
