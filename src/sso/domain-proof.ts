/**
 * The DNS proof that a tenant owns an email domain (docs/sso.md): the admin publishes a TXT record at
 * `_vigil-challenge.<domain>` whose value is `vigil-domain-verification=<token>`; Vigil looks it up with
 * node:dns, through the servers of VIGIL_DNS_SERVERS when set (else the system's).
 */
import { Resolver } from 'node:dns/promises';

/** A name of its own, not the domain's apex: the apex's TXT set (SPF and others) stays as it is, and the name may be a CNAME. */
export const CHALLENGE_LABEL = '_vigil-challenge';
export const CHALLENGE_VALUE_PREFIX = 'vigil-domain-verification=';

/** What the admin publishes for a claim. */
export function challengeRecord(domain: string, token: string): { name: string; type: 'TXT'; value: string } {
  return { name: `${CHALLENGE_LABEL}.${domain}`, type: 'TXT', value: `${CHALLENGE_VALUE_PREFIX}${token}` };
}

/** The TXT records at a name, each one's strings joined; none for a name that does not exist or has no TXT record. */
export type TxtLookup = (name: string) => Promise<string[]>;

/** A lookup that could not get an answer (timeout, refused, server failure): the proof is neither found nor denied. */
export class DnsLookupFailed extends Error {
  constructor(
    readonly code: string,
    name: string,
  ) {
    super(`The DNS lookup of ${name} failed (${code})`);
    this.name = 'DnsLookupFailed';
  }
}

const NO_RECORD = new Set(['ENOTFOUND', 'ENODATA']);

export function txtLookup(servers: readonly string[] | undefined): TxtLookup {
  const resolver = new Resolver({ timeout: 3000, tries: 2 });
  if (servers && servers.length > 0) resolver.setServers([...servers]);
  return async (name) => {
    try {
      return (await resolver.resolveTxt(name)).map((chunks) => chunks.join(''));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'ERROR';
      if (NO_RECORD.has(code)) return [];
      throw new DnsLookupFailed(code, name);
    }
  };
}
