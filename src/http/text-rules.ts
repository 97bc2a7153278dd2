/**
 * Text that could never be meant: control characters in URLs and patterns, and header values an
 * HTTP client would refuse to send. Refused at the door (422 naming the field) instead of failing a
 * scan, or a delivery, later.
 */

/** C0 controls (NUL, tab, CR, LF, ...) and DEL. Tab too: the URL parser silently drops tabs and newlines, changing the target. */
const CONTROL = /[\u0000-\u001F\u007F]/;
/** What an HTTP field value may hold (RFC 9110 5.5: tab, space, visible ASCII, obs-text 0x80-0xFF); undici throws on anything else. */
const NOT_HEADER_VALUE = /[^\t\u0020-\u007E\u0080-\u00FF]/;

export const CONTROL_MESSAGE = 'must not contain control characters (NUL, tab, CR, LF, other C0 characters or DEL)';
export const HEADER_VALUE_MESSAGE =
  'is sent as an HTTP header value: only tab, space, visible ASCII and Latin-1 characters are allowed (no NUL, CR, LF, other control characters or DEL)';

export const hasControlCharacter = (value: string): boolean => CONTROL.test(value);
export const isHeaderValue = (value: string): boolean => !NOT_HEADER_VALUE.test(value);
