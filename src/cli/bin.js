#!/usr/bin/env node
'use strict';
// The `chainpay` package bin. Built (dist/src/cli/bin.js, what package.json's "bin" and
// `npm run chainpay` run): the compiled CLI beside it, with source maps on (stack traces name the
// TypeScript lines). In the repository (src/cli/bin.js, run by tests and `npm run dev:chainpay`):
// the TypeScript source through tsx's CommonJS hook (tsx is a dev dependency). Either way the CLI
// runs in this same process: its stdio and exit code are ours.
const fs = require('node:fs');
const path = require('node:path');

if (fs.existsSync(path.join(__dirname, 'main.js'))) {
  process.setSourceMapsEnabled(true);
  require('./main.js').runMain();
} else {
  require('tsx/cjs');
  require('./main.ts').runMain();
}
