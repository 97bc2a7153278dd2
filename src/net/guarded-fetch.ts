/**
 * A fetch for addresses a tenant chooses (notification webhooks, an OpenID issuer's discovery and keys):
 * every connection, redirects included, goes through the address guard at connect time. A host name's
 * answers are checked by the guarded lookup; an IP literal (which never reaches a lookup) is checked here.
 * With `allowPrivate` (self-hosted) it is a plain fetch.
 */
import { isIP } from 'node:net';
import { Agent, buildConnector, fetch as undiciFetch } from 'undici';
import { BlockedAddressError, guardedLookup, isPublicAddress } from './address-guard.js';

export function guardedFetch(allowPrivate: boolean): typeof fetch {
  const connect = buildConnector({ lookup: guardedLookup(allowPrivate) as never });
  const dispatcher = new Agent({
    connect: (options, callback) => {
      const host = options.hostname.replace(/^\[|\]$/g, '');
      if (!allowPrivate && isIP(host) !== 0 && !isPublicAddress(host)) return callback(new BlockedAddressError(host, host), null);
      connect(options, callback);
    },
  });
  return ((url: string | URL, init?: RequestInit) => undiciFetch(url, { ...(init as object), dispatcher } as never)) as unknown as typeof fetch;
}

/** Whether a fetch failed because the address guard refused the connection (somewhere down its cause chain). */
export function blockedByGuard(error: unknown): boolean {
  for (let e = error as { cause?: unknown; code?: unknown } | undefined, depth = 0; e && depth < 6; e = e.cause as typeof e, depth += 1) {
    if (e instanceof BlockedAddressError || e.code === 'EADDRBLOCKED') return true;
  }
  return false;
}
