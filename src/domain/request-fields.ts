import { ValidationError } from './errors';

/**
 * The fields one request body may carry. Each body's list is declared once, beside the parser of
 * that body (invoice-request.ts, withdrawal-request.ts); the parser checks it first, so a typo
 * (`netwrok`, `lifetime_minute`) or a field this service does not have is refused instead of
 * being dropped while the request goes through with a default in its place.
 */
export class BodyFields {
  private readonly allowed: ReadonlySet<string>;

  constructor(readonly names: readonly string[]) {
    this.allowed = new Set(names);
  }

  /** Throws UnknownFieldError naming the first field (in body order) that is not allowed. */
  assertKnown(body: Readonly<Record<string, unknown>>): void {
    for (const key in body) {
      if (Object.hasOwn(body, key) && !this.allowed.has(key)) {
        const unknown = Object.keys(body).filter((k) => !this.allowed.has(k));
        throw new UnknownFieldError(key, unknown, this.names);
      }
    }
  }
}

/** A body's keys are the client's text: bounded before they are echoed in an error. */
const FIELD_MAX = 200;
const LISTED_MAX = 5;
const LISTED_NAME_MAX = 64;

/**
 * 422 `unknown_field`, `field` naming the first unknown one; the message lists the unknown ones
 * (the first few, each cut short) and what the body accepts.
 */
export class UnknownFieldError extends ValidationError {
  constructor(field: string, unknown: readonly string[], allowed: readonly string[]) {
    const shown = unknown.slice(0, LISTED_MAX).map((f) => JSON.stringify(f.slice(0, LISTED_NAME_MAX)));
    const more = unknown.length > LISTED_MAX ? ` and ${unknown.length - LISTED_MAX} more` : '';
    super('unknown_field', `unknown field${unknown.length > 1 ? 's' : ''} ${shown.join(', ')}${more}; this body accepts ${allowed.join(', ')}`, field.slice(0, FIELD_MAX), {
      unknown_fields: unknown.length,
    });
  }
}
