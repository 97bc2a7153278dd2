/**
 * A SAML 2.0 identity provider for the tests: an RSA key pair and certificate made by openssl, metadata
 * XML, and responses built and signed (enveloped, exclusive C14N, RSA-SHA256) with xml-crypto, the
 * library maintained IdPs (samlify among them) sign with. Every field can be bent for the attack cases.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { SignedXml } from 'xml-crypto';

export interface KeyPair {
  key: string;
  cert: string;
  /** The certificate's base64 body, as metadata carries it. */
  certBody: string;
}

export function makeKeyPair(name: string): KeyPair {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-saml-'));
  try {
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', `/CN=${name}`, '-days', '2', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')],
      { stdio: 'ignore' },
    );
    const cert = readFileSync(join(dir, 'cert.pem'), 'utf8');
    return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert, certBody: cert.replace(/-----[A-Z ]+-----|\s+/g, '') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const IDP_ENTITY = 'https://idp.example.test/saml';
export const IDP_SSO_URL = 'https://idp.example.test/saml/sso';

export function idpMetadata(pair: KeyPair): string {
  return `<?xml version="1.0"?>
<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="${IDP_ENTITY}">
  <md:IDPSSODescriptor WantAuthnRequestsSigned="false" protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    <md:KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${pair.certBody}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${IDP_SSO_URL}"/>
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${IDP_SSO_URL}"/>
  </md:IDPSSODescriptor>
</md:EntityDescriptor>`;
}

/** The AuthnRequest a redirect to the IdP carries (HTTP-Redirect binding: deflated, base64). */
export function readAuthnRequest(location: string): { id: string; acs: string; issuer: string; relayState: string | null } {
  const url = new URL(location);
  const xml = inflateRawSync(Buffer.from(url.searchParams.get('SAMLRequest')!, 'base64')).toString('utf8');
  return {
    id: /\sID="([^"]+)"/.exec(xml)![1]!,
    acs: /AssertionConsumerServiceURL="([^"]+)"/.exec(xml)![1]!,
    issuer: /<saml:Issuer[^>]*>([^<]+)</.exec(xml)![1]!,
    relayState: url.searchParams.get('RelayState'),
  };
}

export interface AssertionFields {
  inResponseTo: string;
  acs: string;
  audience: string;
  nameId: string;
  email: string;
  groups: string[];
  /** Seconds from now the assertion stops being valid (negative: expired). */
  validForSeconds?: number;
  assertionId?: string;
}

function iso(offsetSeconds: number): string {
  return new Date(Date.now() + offsetSeconds * 1000).toISOString();
}

export function assertionXml(f: AssertionFields): string {
  const id = f.assertionId ?? `_a${randomBytes(16).toString('hex')}`;
  const valid = f.validForSeconds ?? 300;
  const groups = f.groups.map((g) => `<saml:AttributeValue>${g}</saml:AttributeValue>`).join('');
  return (
    `<saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${id}" Version="2.0" IssueInstant="${iso(valid < 0 ? valid - 60 : 0)}">` +
    `<saml:Issuer>${IDP_ENTITY}</saml:Issuer>` +
    `<saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress">${f.nameId}</saml:NameID>` +
    `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData InResponseTo="${f.inResponseTo}" NotOnOrAfter="${iso(valid)}" Recipient="${f.acs}"/></saml:SubjectConfirmation></saml:Subject>` +
    `<saml:Conditions NotBefore="${iso(valid < 0 ? valid - 120 : -30)}" NotOnOrAfter="${iso(valid)}"><saml:AudienceRestriction><saml:Audience>${f.audience}</saml:Audience></saml:AudienceRestriction></saml:Conditions>` +
    `<saml:AuthnStatement AuthnInstant="${iso(valid < 0 ? valid - 60 : 0)}" SessionIndex="_s${randomBytes(8).toString('hex')}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>` +
    `<saml:AttributeStatement><saml:Attribute Name="email"><saml:AttributeValue>${f.email}</saml:AttributeValue></saml:Attribute><saml:Attribute Name="groups">${groups}</saml:Attribute></saml:AttributeStatement>` +
    `</saml:Assertion>`
  );
}

/** Signs the (first) assertion of `xml` with `pair`: an enveloped signature placed after its Issuer. */
export function signAssertion(xml: string, pair: KeyPair): string {
  const sig = new SignedXml({
    privateKey: pair.key,
    publicCert: pair.cert,
    signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
    canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#',
  });
  sig.addReference({
    xpath: "//*[local-name(.)='Assertion']",
    digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
    transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', 'http://www.w3.org/2001/10/xml-exc-c14n#'],
  });
  sig.computeSignature(xml, { location: { reference: "//*[local-name(.)='Assertion']/*[local-name(.)='Issuer']", action: 'after' } });
  return sig.getSignedXml();
}

export function responseXml(inResponseTo: string, acs: string, assertion: string): string {
  return (
    `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_r${randomBytes(16).toString('hex')}" Version="2.0" IssueInstant="${iso(0)}" Destination="${acs}" InResponseTo="${inResponseTo}">` +
    `<saml:Issuer>${IDP_ENTITY}</saml:Issuer><samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>` +
    assertion +
    `</samlp:Response>`
  );
}
