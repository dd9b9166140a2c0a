import { COMMANDS } from './commands';

const ENVIRONMENT = `Every command takes --json (one JSON document on stdout; watch commands print one JSON line per update).
Exit codes: 0 ok, 1 error (printed as "error: <code>: <message>"), 2 usage error.

Environment:
  CHAINPAY_GRPC_ADDR       daemon gRPC address (default 127.0.0.1:$GRPC_PORT, GRPC_PORT default 50051)
  CHAINPAY_OPERATOR_TOKEN  operator token (else OPERATOR_TOKEN, else the file $DATA_DIR/operator-token;
                           DATA_DIR defaults to .chainpay)
  CHAINPAY_API_SECRET      merchant API secret for "sign" (instead of --secret); CHAINPAY_API_KEY for --key`;

function line(name: string, usage: string, summary: string): string {
  return `  chainpay ${name}${usage ? ` ${usage}` : ''}\n      ${summary}`;
}

/** Usage of one command, of a group ('merchant'), or of everything (no argument). */
export function usageText(scope?: string): string {
  const exact = COMMANDS.find((c) => c.name === scope);
  const inGroup = scope ? COMMANDS.filter((c) => c.name === scope || c.name.startsWith(`${scope} `)) : [];
  if (exact && inGroup.length === 1) return `usage:\n${line(exact.name, exact.usage, exact.summary)}`;
  if (inGroup.length > 0) return `usage:\n${inGroup.map((c) => line(c.name, c.usage, c.summary)).join('\n')}`;
  return `usage: chainpay <command> [options] [--json]\n\nCommands:\n${COMMANDS.map((c) => line(c.name, c.usage, c.summary)).join('\n')}\n  chainpay help [command]\n      this text\n\n${ENVIRONMENT}`;
}
