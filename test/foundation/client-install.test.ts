import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

jest.setTimeout(180_000);

/**
 * The typed client installs on its own (issue 51): it used to work only because the repository's
 * `npm ci` had built it. A copy of clients/typescript outside the repository, with no node_modules
 * and no dist/, gets `npm install` (its dev dependencies from npm's cache, then `prepare` builds
 * it), and a shop installs that folder and loads the package by name.
 */
const CLIENT = path.resolve(__dirname, '..', '..', 'clients', 'typescript');
const npm = (cwd: string, args: string[]): string =>
  execFileSync('npm', [...args, '--no-audit', '--no-fund', '--prefer-offline'], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, npm_config_update_notifier: 'false' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });

describe('clients/typescript installs alone', () => {
  it('npm install in a bare copy builds dist/; a shop installs it and calls it', () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'chainpay-client-install-'));
    const copy = path.join(tmp, 'client');
    fs.cpSync(CLIENT, copy, { recursive: true, filter: (src) => !/[/\\](node_modules|dist)([/\\]|$)/.test(src.slice(CLIENT.length)) });
    expect(fs.existsSync(path.join(copy, 'dist'))).toBe(false);

    npm(copy, ['install']);
    expect(fs.existsSync(path.join(copy, 'dist', 'index.js'))).toBe(true);
    expect(fs.existsSync(path.join(copy, 'dist', 'index.d.ts'))).toBe(true);

    const shop = path.join(tmp, 'shop');
    fs.mkdirSync(shop);
    fs.writeFileSync(path.join(shop, 'package.json'), JSON.stringify({ name: 'shop', version: '1.0.0', private: true }));
    npm(shop, ['install', copy]);
    const out = execFileSync(
      process.execPath,
      [
        '-e',
        "const c = require('@chainpay/client'); const k = new c.ChainpayClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'pk', apiSecret: 'sk' }); console.log(typeof k.createInvoice, c.signBody('sk', '{}').length)",
      ],
      { cwd: shop, encoding: 'utf8' },
    );
    expect(out.trim()).toBe('function 64');
  });
});
