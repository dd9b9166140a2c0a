#!/usr/bin/env node
'use strict';
// The `chainpay` package bin: registers tsx's CommonJS hook so the TypeScript sources run as they
// are (no build step), then runs the CLI in this same process (stdio and exit code are ours).
require('tsx/cjs');
require('./main.ts').runMain();
