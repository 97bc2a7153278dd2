/** Start a scan with every option of POST /scan: target, mode, spec (URL or uploaded file), target auth, options. */
import { useState } from 'preact/hooks';
import { api, ApiFailure } from '../api.js';
import { ErrorBox } from '../components.js';
import { navigate } from '../router.js';
import type { ScanRequest } from '../types.js';

type Auth = NonNullable<ScanRequest['auth']>;
type Options = NonNullable<ScanRequest['options']>;

const lines = (text: string) =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);

function base64(bytes: ArrayBuffer): string {
  let binary = '';
  const view = new Uint8Array(bytes);
  for (let i = 0; i < view.length; i += 0x8000) binary += String.fromCharCode(...view.subarray(i, i + 0x8000));
  return btoa(binary);
}

export function NewScanPage() {
  const [error, setError] = useState<ApiFailure | undefined>();
  const [busy, setBusy] = useState(false);
  const [mode, setMode] = useState<'security' | 'functional' | 'full'>('security');
  const [authType, setAuthType] = useState<Auth['type']>('none');

  const submit = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    const form = new FormData(event.target as HTMLFormElement);
    const text = (name: string) => String(form.get(name) ?? '').trim();
    const int = (name: string) => (text(name) === '' ? undefined : Number(text(name)));
    const body: ScanRequest = { url: text('url'), mode };
    if (text('spec_url')) body.spec_url = text('spec_url');
    const file = form.get('spec_file');
    if (file instanceof File && file.size > 0) body.spec_content = base64(await file.arrayBuffer());

    if (authType && authType !== 'none') {
      const auth: Auth = { type: authType };
      for (const field of [
        'token',
        'header_name',
        'header_value',
        'username',
        'password',
        'oauth2_token_url',
        'oauth2_client_id',
        'oauth2_client_secret',
        'oauth2_scope',
      ] as const) {
        if (text(`auth_${field}`)) (auth as Record<string, unknown>)[field] = text(`auth_${field}`);
      }
      body.auth = auth;
    }

    let options: Options = {};
    if (int('concurrency') !== undefined) options.concurrency = int('concurrency');
    if (int('timeout') !== undefined) options.timeout = int('timeout');
    if (text('fail_on')) options.fail_on = text('fail_on') as Options['fail_on'];
    if (lines(text('exclude')).length) options.exclude = lines(text('exclude'));
    if (mode !== 'security') {
      if (lines(text('pages')).length) options.pages = lines(text('pages'));
      if (int('max_pages') !== undefined) options.max_pages = int('max_pages');
      if (text('diff_threshold_percent')) options.diff_threshold_percent = Number(text('diff_threshold_percent'));
      if (int('viewport_width') !== undefined && int('viewport_height') !== undefined)
        options.viewport = { width: int('viewport_width')!, height: int('viewport_height')! };
      if (text('device')) options.device = text('device') as Options['device'];
      if (text('accessibility_profile')) options.accessibility_profile = text('accessibility_profile') as Options['accessibility_profile'];
      if (lines(text('mask')).length) options.mask = lines(text('mask'));
      if (text('branch')) options.branch = text('branch');
      if (form.get('reset_baseline') === 'on') body.reset_baseline = true;
    }
    if (text('more_options')) {
      try {
        const more = JSON.parse(text('more_options')) as unknown;
        if (!more || typeof more !== 'object' || Array.isArray(more)) throw new Error('not an object');
        options = { ...options, ...(more as Options) };
      } catch {
        setError(new ApiFailure(0, 'INVALID_OPTIONS', 'More options must be a JSON object, e.g. {"safe_mode": false}'));
        return;
      }
    }
    if (Object.keys(options).length) body.options = options;

    setBusy(true);
    try {
      const started = await api('post', '/scan', { json: body });
      navigate(`/scans/${encodeURIComponent(started.scan_id)}`);
    } catch (failure) {
      setError(failure as ApiFailure);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="new-title">
      <h1 id="new-title">Start a scan</h1>
      <form class="scan-form" onSubmit={(e) => void submit(e)}>
        <fieldset>
          <legend>Target</legend>
          <label>
            Target base URL
            <input name="url" type="url" required placeholder="https://staging.example.com" />
          </label>
          <fieldset class="inline">
            <legend>Mode</legend>
            {(['security', 'functional', 'full'] as const).map((m) => (
              <label key={m} class="check">
                <input type="radio" name="mode" value={m} checked={mode === m} onChange={() => setMode(m)} /> {m}
              </label>
            ))}
          </fieldset>
        </fieldset>

        {mode !== 'functional' && (
          <fieldset>
            <legend>API specification (security)</legend>
            <label>
              Specification URL
              <input name="spec_url" type="url" placeholder="https://staging.example.com/openapi.json" />
            </label>
            <label>
              Or upload the OpenAPI/Swagger file (JSON or YAML)
              <input name="spec_file" type="file" accept=".json,.yaml,.yml,application/json,application/yaml,text/yaml" />
            </label>
          </fieldset>
        )}

        <fieldset>
          <legend>Target authentication</legend>
          <label>
            Type
            <select name="auth_type" value={authType} onChange={(e) => setAuthType((e.target as HTMLSelectElement).value as Auth['type'])}>
              <option value="none">none</option>
              <option value="bearer">bearer</option>
              <option value="header">header</option>
              <option value="basic">basic</option>
              <option value="oauth2">oauth2 (client credentials)</option>
            </select>
          </label>
          {authType === 'bearer' && (
            <label>
              Token
              <input name="auth_token" type="password" autoComplete="off" />
            </label>
          )}
          {authType === 'header' && (
            <>
              <label>
                Header name
                <input name="auth_header_name" />
              </label>
              <label>
                Header value
                <input name="auth_header_value" type="password" autoComplete="off" />
              </label>
            </>
          )}
          {authType === 'basic' && (
            <>
              <label>
                User name
                <input name="auth_username" autoComplete="off" />
              </label>
              <label>
                Password
                <input name="auth_password" type="password" autoComplete="off" />
              </label>
            </>
          )}
          {authType === 'oauth2' && (
            <>
              <label>
                Token URL
                <input name="auth_oauth2_token_url" type="url" />
              </label>
              <label>
                Client id
                <input name="auth_oauth2_client_id" />
              </label>
              <label>
                Client secret
                <input name="auth_oauth2_client_secret" type="password" autoComplete="off" />
              </label>
              <label>
                Scope
                <input name="auth_oauth2_scope" />
              </label>
            </>
          )}
        </fieldset>

        <fieldset>
          <legend>Options</legend>
          <div class="grid">
            <label>
              Concurrency (default 5)
              <input name="concurrency" type="number" min={1} max={50} inputMode="numeric" />
            </label>
            <label>
              Timeout, seconds (default 30)
              <input name="timeout" type="number" min={1} max={300} inputMode="numeric" />
            </label>
            <label>
              Fail on severity
              <select name="fail_on">
                <option value="">(none)</option>
                <option value="critical">critical</option>
                <option value="high">high</option>
                <option value="medium">medium</option>
                <option value="low">low</option>
              </select>
            </label>
          </div>
          <label>
            Exclude (one path or URL pattern a line)
            <textarea name="exclude" rows={2} />
          </label>
        </fieldset>

        {mode !== 'security' && (
          <fieldset>
            <legend>Functional options</legend>
            <label>
              Pages (one path or URL a line; default: crawl from the target)
              <textarea name="pages" rows={3} placeholder={'/\n/pricing'} />
            </label>
            <div class="grid">
              <label>
                Most pages crawled (default 10)
                <input name="max_pages" type="number" min={1} inputMode="numeric" />
              </label>
              <label>
                Diff threshold, % of pixels (default 0.5)
                <input name="diff_threshold_percent" type="number" min={0} max={100} step="0.01" inputMode="decimal" />
              </label>
              <label>
                Viewport width
                <input name="viewport_width" type="number" min={200} inputMode="numeric" />
              </label>
              <label>
                Viewport height
                <input name="viewport_height" type="number" min={200} inputMode="numeric" />
              </label>
              <label>
                Device
                <select name="device">
                  <option value="">desktop (default)</option>
                  <option value="mobile">mobile</option>
                </select>
              </label>
              <label>
                Accessibility profile
                <select name="accessibility_profile">
                  <option value="">WCAG 2.1 AA (default)</option>
                  <option value="wcag22aa">WCAG 2.2 AA (team)</option>
                  <option value="section508">Section 508 (team)</option>
                </select>
              </label>
              <label>
                Branch (baselines)
                <input name="branch" />
              </label>
            </div>
            <label>
              Mask (CSS selectors painted over before screenshots, one a line)
              <textarea name="mask" rows={2} />
            </label>
            <label class="check">
              <input type="checkbox" name="reset_baseline" /> Reset the visual baseline with this scan's screenshots
            </label>
          </fieldset>
        )}

        <details>
          <summary>More options (JSON)</summary>
          <label>
            Any other field of <code>options</code> (see the API reference), merged over the fields above
            <textarea name="more_options" rows={3} placeholder={'{"safe_mode": true}'} />
          </label>
        </details>

        {error && <ErrorBox error={error} />}
        <button type="submit" disabled={busy}>
          {busy ? 'Starting…' : 'Start scan'}
        </button>
      </form>
    </section>
  );
}
