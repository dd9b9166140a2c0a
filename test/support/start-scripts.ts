import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './processes';

export type StartScript = 'start' | 'start:daemon' | 'start:gateway';

/**
 * A start script of package.json, `exec node <flags> <entry>`, taken apart: the Node flags and the
 * compiled entry point. `exec`: the shell npm runs the script in becomes node, so the signals npm
 * forwards reach the process that drains (gateway/stop-on-signals.ts).
 */
export function startScript(name: StartScript): { flags: string[]; entry: string } {
  const scripts = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  const words = scripts[name]!.split(/\s+/);
  if (words[0] !== 'exec' || words[1] !== 'node') throw new Error(`package.json script ${name} is not "exec node <flags> <entry>": ${scripts[name]}`);
  return { flags: words.slice(2, -1), entry: words[words.length - 1]! };
}

/** How docker-compose.yml and the Dockerfile write that command: a JSON exec array. */
export function execArray(name: StartScript): string {
  const { flags, entry } = startScript(name);
  return JSON.stringify(['node', ...flags, entry]).replace(/,/g, ', ');
}
