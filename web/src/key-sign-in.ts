/**
 * Signing in to the dashboard with an API key: the key goes once to POST /session/key, which opens a cookie
 * session (or refuses with 403 SSO_REQUIRED when the tenant requires single sign-on); the tab keeps the
 * session, never the key.
 */
import { api } from './api.js';
import { cookieSessionOf, session } from './session.js';

export async function signInWithKey(key: string): Promise<void> {
  const opened = await api('post', '/session/key', { key, cookie: true });
  const found = cookieSessionOf(opened);
  if (!found) throw new Error('The server answered the key sign-in without a session');
  session.useCookie(found);
}
