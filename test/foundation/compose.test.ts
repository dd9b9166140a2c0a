import { execFileSync } from 'node:child_process';
import path from 'node:path';

describe('docker-compose.yml', () => {
  it('is valid (docker-compose config) and shows PostgreSQL, two daemons and a gateway', () => {
    const root = path.resolve(__dirname, '../..');
    const out = execFileSync('docker-compose', ['-f', 'docker-compose.yml', 'config', '--services'], {
      cwd: root,
      env: { ...process.env, CHAINPAY_MASTER_KEY: 'a'.repeat(64), CHAINPAY_OPERATOR_TOKEN: 'op_test_token_0000000000', CHAINPAY_HD_MNEMONIC: 'test' },
      encoding: 'utf8',
    });
    expect(out.trim().split('\n').sort()).toEqual(['daemon-a', 'daemon-b', 'gateway', 'postgres']);
  });
});
