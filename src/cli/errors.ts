/** A command line that cannot be run as written: exit code 2 with the usage text. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  constructor(
    message: string,
    /** The command whose usage to print ('merchant create'); the whole usage when absent. */
    readonly command?: string,
  ) {
    super(message);
  }
}

/** A failed call or local failure: exit code 1, printed as `error: <code>: <message>`. */
export class CliError extends Error {
  override readonly name = 'CliError';
  constructor(
    /** snake_case code: the daemon's `chainpay-error-code`, else the gRPC status name lowercased. */
    readonly code: string,
    message: string,
    readonly field?: string,
    /** The gRPC status name (NOT_FOUND, ...) when the error came from the daemon. */
    readonly grpcStatus?: string,
  ) {
    super(message);
  }

  toJSON(): { code: string; message: string; field?: string; grpc_status?: string } {
    return { code: this.code, message: this.message, field: this.field, grpc_status: this.grpcStatus };
  }
}
