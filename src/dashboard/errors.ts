import { DomainError } from '../domain/errors';

/** Too many failed sign-ins for this email or from this address: the same answer whether the email exists or not. */
export class SignInLockedError extends DomainError {
  override readonly name = 'SignInLockedError';
  constructor(retryAfterSeconds: number) {
    super('rate_limited', 'sign_in_locked', 'too many failed sign-ins; try again later', undefined, { retry_after: retryAfterSeconds });
  }
}

/** One answer for a wrong email, password or code, a disabled user or one not set up yet. */
export class InvalidCredentialsError extends DomainError {
  override readonly name = 'InvalidCredentialsError';
  constructor() {
    super('unauthenticated', 'invalid_credentials', 'the email, password or code is wrong');
  }
}

/** No session, or an ended, expired or idle one: sign in again. */
export class SessionEndedError extends DomainError {
  override readonly name = 'SessionEndedError';
  constructor() {
    super('unauthenticated', 'session_ended', 'not signed in, or the session ended');
  }
}
