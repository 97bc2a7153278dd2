/**
 * SAML 2.0 sign-in with `@node-saml/node-saml` (the maintained core of passport-saml; XML signatures by
 * xml-crypto): signed assertions required, audience, recipient, NotBefore/NotOnOrAfter and InResponseTo
 * checked by the library. Here: reading the IdP's metadata (which holds no secrets and is not trusted
 * for anything but the address and certificates the admin gave), the InResponseTo cache kept in the
 * store, and the assertion ids already accepted (replays refused).
 */
import { DOMParser } from '@xmldom/xmldom';
import { SAML, ValidateInResponseTo, type CacheProvider, type Profile } from '@node-saml/node-saml';
import xpath from 'xpath';

export interface IdpMetadata {
  entityId: string;
  ssoUrl: string;
  certificates: string[];
}

export class SamlSignInError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SamlSignInError';
  }
}

const NS = { md: 'urn:oasis:names:tc:SAML:2.0:metadata', ds: 'http://www.w3.org/2000/09/xmldsig#' };
const REDIRECT = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';

/** The IdP's entity id, HTTP-Redirect sign-in address and signing certificates; throws SamlSignInError when one is missing. */
export function readIdpMetadata(xml: string): IdpMetadata {
  const errors: string[] = [];
  const doc = new DOMParser({ onError: (level, message) => level !== 'warning' && errors.push(String(message)) }).parseFromString(xml, 'text/xml');
  if (errors.length > 0 || !doc.documentElement) throw new SamlSignInError('The IdP metadata is not well-formed XML');
  const select = xpath.useNamespaces(NS);
  const text = (expression: string) =>
    (select(expression, doc as unknown as Node) as Array<Attr | Node>).map((n) => ('value' in n ? n.value : (n.textContent ?? '')).trim());
  const entityId = text('//md:EntityDescriptor[md:IDPSSODescriptor]/@entityID')[0];
  const ssoUrl = text(`//md:IDPSSODescriptor/md:SingleSignOnService[@Binding='${REDIRECT}']/@Location`)[0];
  const certificates = text("//md:IDPSSODescriptor/md:KeyDescriptor[not(@use) or @use='signing']//ds:X509Certificate").map((c) => c.replace(/\s+/g, ''));
  if (!entityId) throw new SamlSignInError('The IdP metadata has no EntityDescriptor with an IDPSSODescriptor and an entityID');
  if (!ssoUrl || !/^https?:\/\//.test(ssoUrl)) throw new SamlSignInError('The IdP metadata has no SingleSignOnService with the HTTP-Redirect binding');
  if (certificates.length === 0) throw new SamlSignInError('The IdP metadata has no signing certificate (KeyDescriptor with an X509Certificate)');
  return { entityId, ssoUrl, certificates };
}

export interface SamlServiceProvider {
  entityId: string;
  acsUrl: string;
}

export interface SamlIdentity {
  subject: string;
  email: string | null;
  name: string | null;
  attributes: Record<string, unknown>;
  assertionId: string;
  /** Until when the assertion is valid (its Conditions' NotOnOrAfter), for the replay list. */
  notOnOrAfter: string;
}

/** node-saml's client for one tenant's IdP. */
export function samlFor(metadata: IdpMetadata, sp: SamlServiceProvider, requests: CacheProvider): SAML {
  return new SAML({
    entryPoint: metadata.ssoUrl,
    idpIssuer: metadata.entityId,
    idpCert: metadata.certificates,
    issuer: sp.entityId,
    audience: sp.entityId,
    callbackUrl: sp.acsUrl,
    wantAssertionsSigned: true,
    // Many IdPs sign only the assertion; the assertion's signature is what is required.
    wantAuthnResponseSigned: false,
    validateInResponseTo: ValidateInResponseTo.always,
    requestIdExpirationPeriodMs: 10 * 60 * 1000,
    cacheProvider: requests,
    acceptedClockSkewMs: 60_000,
    maxAssertionAgeMs: 10 * 60 * 1000,
    disableRequestedAuthnContext: true,
    identifierFormat: null,
  });
}

/** Verifies a POSTed SAMLResponse; throws SamlSignInError for anything refused. */
export async function readSamlResponse(saml: SAML, samlResponse: string): Promise<SamlIdentity> {
  let profile: Profile | null;
  try {
    ({ profile } = await saml.validatePostResponseAsync({ SAMLResponse: samlResponse }));
  } catch (error) {
    throw new SamlSignInError(`The SAML response was refused: ${(error as Error).message}`);
  }
  if (!profile?.nameID) throw new SamlSignInError('The SAML assertion names no subject');
  const assertion = profile.getAssertion?.() as { Assertion?: { $?: { ID?: string }; Conditions?: Array<{ $?: { NotOnOrAfter?: string } }> } } | undefined;
  const assertionId = assertion?.Assertion?.$?.ID;
  if (!assertionId) throw new SamlSignInError('The SAML assertion has no ID');
  const notOnOrAfter = assertion?.Assertion?.Conditions?.[0]?.$?.NotOnOrAfter ?? new Date(Date.now() + 3600_000).toISOString();
  const attribute = (...names: string[]) => {
    for (const name of names) if (typeof profile![name] === 'string') return profile![name] as string;
    return null;
  };
  return {
    subject: profile.nameID,
    email:
      attribute('email', 'mail', 'urn:oid:0.9.2342.19200300.100.1.3', 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress') ??
      (profile.nameID.includes('@') ? profile.nameID : null),
    name: attribute('name', 'displayName', 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/name'),
    attributes: profile as Record<string, unknown>,
    assertionId,
    notOnOrAfter: new Date(notOnOrAfter).toISOString(),
  };
}
