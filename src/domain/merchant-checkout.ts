import { ValidationError } from './errors';

/**
 * The merchant's checkout settings (issue 39), as `chainpay merchant set-checkout` sets them: the
 * name the buyer reads and whom the buyer contacts about an underpaid or expired invoice. Each is
 * checked here; '' clears a setting (stored null). Undefined: left as it is.
 */
export const MAX_DISPLAY_NAME = 100;
const MAX_URL = 500;
const MAX_EMAIL = 254;
// One @, no spaces, angle brackets or quotes, a dot in the domain: enough to be a mailto: target.
const EMAIL = /^[^\s@<>"'()[\]\\,;:]+@[^\s@<>"'()[\]\\,;:]+\.[^\s@<>"'()[\]\\,;:.]+$/;
// Control characters (C0, DEL, C1) and bidirectional overrides could disguise the name on the page.
const UNSAFE_TEXT = /[\p{Cc}\u202a-\u202e\u2066-\u2069]/u;

export function displayNameSetting(value: string | undefined): string | null | undefined {
  if (value === undefined) return undefined;
  const name = value.trim();
  if (name === '') return null;
  if (name.length > MAX_DISPLAY_NAME) throw new ValidationError('invalid_display_name', `display_name is at most ${MAX_DISPLAY_NAME} characters`, 'display_name');
  if (UNSAFE_TEXT.test(name)) throw new ValidationError('invalid_display_name', 'display_name contains control characters', 'display_name');
  return name;
}

export function supportUrlSetting(value: string | undefined): string | null | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (text === '') return null;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ValidationError('invalid_support_url', 'support_url must be an https URL', 'support_url');
  }
  if (url.protocol !== 'https:' || url.username || url.password || text.length > MAX_URL) {
    throw new ValidationError('invalid_support_url', `support_url must be an https URL without credentials, at most ${MAX_URL} characters`, 'support_url');
  }
  return url.href;
}

export function supportEmailSetting(value: string | undefined): string | null | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (text === '') return null;
  if (text.length > MAX_EMAIL || !EMAIL.test(text)) throw new ValidationError('invalid_support_email', 'support_email must be an email address', 'support_email');
  return text;
}
