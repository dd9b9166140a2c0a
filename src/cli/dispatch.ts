import { parseArgs } from 'node:util';
import { Args, type CommandSpec } from './command';
import { COMMANDS } from './commands';
import { UsageError } from './errors';

const BY_NAME = new Map(COMMANDS.map((c) => [c.name, c]));
/** `merchant`, and `merchant user` for the three-word commands. */
const GROUPS = new Set(
  COMMANDS.filter((c) => c.name.includes(' ')).flatMap((c) =>
    c.name
      .split(' ')
      .slice(0, -1)
      .map((_, i, all) => all.slice(0, i + 1).join(' ')),
  ),
);

export type Resolved = { readonly kind: 'help'; readonly scope?: string } | { readonly kind: 'run'; readonly spec: CommandSpec; readonly args: Args };

const isOption = (s: string | undefined): boolean => s?.startsWith('-') ?? false;

/** Finds the command named by the leading words; `help [words]` and `--help` resolve to help. */
function findCommand(words: readonly string[]): { spec: CommandSpec; rest: readonly string[] } {
  const [first, second, third] = words;
  if (first === undefined || isOption(first)) throw new UsageError('missing command');
  // Three words (`merchant user add`) before two.
  if (second !== undefined && third !== undefined && !isOption(second) && !isOption(third)) {
    const sub = BY_NAME.get(`${first} ${second} ${third}`);
    if (sub) return { spec: sub, rest: words.slice(3) };
    if (GROUPS.has(`${first} ${second}`)) throw new UsageError(`unknown command '${first} ${second} ${third}'`, `${first} ${second}`);
  }
  if (second !== undefined && !isOption(second)) {
    if (GROUPS.has(`${first} ${second}`) && !BY_NAME.has(`${first} ${second}`)) throw new UsageError(`'${first} ${second}' needs a subcommand`, `${first} ${second}`);
    const sub = BY_NAME.get(`${first} ${second}`);
    if (sub) return { spec: sub, rest: words.slice(2) };
    if (GROUPS.has(first)) throw new UsageError(`unknown command '${first} ${second}'`, first);
  }
  const spec = BY_NAME.get(first);
  if (spec) return { spec, rest: words.slice(1) };
  if (GROUPS.has(first)) throw new UsageError(`'${first}' needs a subcommand`, first);
  throw new UsageError(`unknown command '${first}'`);
}

/** argv (without node and script) -> the command and its validated arguments, or UsageError. */
export function resolve(argv: readonly string[]): Resolved {
  // Global flags may come before the command: `chainpay --json merchant list`.
  let i = 0;
  while (argv[i] === '--json') i++;
  const words = argv.slice(i);
  if (words[0] === 'help' || words[0] === '--help' || words[0] === '-h') {
    const scope = words
      .slice(1)
      .filter((w) => !isOption(w))
      .join(' ');
    return { kind: 'help', scope: scope || undefined };
  }
  const { spec, rest } = findCommand(words);
  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = {
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  };
  for (const [name, o] of Object.entries(spec.options ?? {})) options[name] = { type: o.type, ...(o.short ? { short: o.short } : {}) };
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: [...rest], options, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError((e as Error).message, spec.name);
  }
  if (parsed.values.help === true) return { kind: 'help', scope: spec.name };
  const expected = spec.positionals ?? [];
  if (parsed.positionals.length < expected.length) throw new UsageError(`missing ${expected[parsed.positionals.length]}`, spec.name);
  if (parsed.positionals.length > expected.length) throw new UsageError(`unexpected argument '${parsed.positionals[expected.length]}'`, spec.name);
  const values = parsed.values as Record<string, string | boolean | undefined>;
  for (const [name, o] of Object.entries(spec.options ?? {})) {
    if (o.required && values[name] === undefined) throw new UsageError(`--${name} is required`, spec.name);
  }
  return { kind: 'run', spec, args: new Args(spec.name, values, parsed.positionals) };
}
