import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { OPENAPI_DOCUMENT } from '../../gateway/openapi/document';

const root = path.resolve(__dirname, '../..');
const GENERATED = ['openapi.json', 'src/generated/openapi.ts'];

/**
 * The TypeScript client (clients/typescript) carries the OpenAPI document as JSON and the types
 * openapi-typescript generates from it, both committed: they must be what `npm run client:gen`
 * writes from gateway/openapi/ now, or the client's types describe another API than the gateway's.
 */
describe('generated TypeScript client files', () => {
  it('match what `npm run client:gen` writes from gateway/openapi/ now', () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'chainpay-client-gen-'));
    try {
      execFileSync(path.join(root, 'node_modules/.bin/tsx'), [path.join(root, 'scripts/gen-client-types.ts'), '--out', out], { cwd: root, stdio: 'pipe' });
      for (const file of GENERATED) {
        const committed = fs.readFileSync(path.join(root, 'clients/typescript', file), 'utf8');
        expect({ file, text: committed }).toEqual({ file, text: fs.readFileSync(path.join(out, file), 'utf8') });
      }
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
  });

  it('openapi.json is the document the gateway serves', () => {
    expect(JSON.parse(fs.readFileSync(path.join(root, 'clients/typescript/openapi.json'), 'utf8'))).toEqual(JSON.parse(JSON.stringify(OPENAPI_DOCUMENT)));
  });
});
