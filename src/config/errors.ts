/** A bad value stops start-up with a message naming the variable (the processes exit with 78, EX_CONFIG). */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`invalid configuration: ${variable}: ${message}`);
  }
}
