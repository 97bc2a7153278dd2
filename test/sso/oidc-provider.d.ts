// oidc-provider ships no type declarations; the test IdP uses a small, well-documented part of it.
declare module 'oidc-provider';
