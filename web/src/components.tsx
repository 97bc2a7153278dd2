/** Small shared pieces: data loading, errors, badges, pagination, formatting. */
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiFailure } from './api.js';

export interface Loaded<T> {
  data?: T;
  error?: ApiFailure;
  loading: boolean;
  reload: () => void;
  set: (data: T) => void;
}

/** Calls `load` when `deps` change (and on reload); keeps the last data while reloading (no flicker on live refresh). */
export function useLoad<T>(load: (signal: AbortSignal) => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: ApiFailure; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  const loader = useRef(load);
  loader.current = load;
  useEffect(() => {
    const controller = new AbortController();
    setState((s) => ({ ...s, loading: true }));
    loader
      .current(controller.signal)
      .then((data) => void (!controller.signal.aborted && setState({ data, loading: false })))
      .catch((error: unknown) => {
        if (controller.signal.aborted) return;
        const failure = error instanceof ApiFailure ? error : new ApiFailure(0, 'CLIENT_ERROR', (error as Error).message);
        // A failed refresh keeps what was shown (a 404 clears it: the thing is gone).
        setState((s) => ({ data: failure.status === 404 ? undefined : s.data, error: failure, loading: false }));
      });
    return () => controller.abort();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  const set = useCallback((data: T) => setState({ data, loading: false }), []);
  return { ...state, reload, set };
}

export function Loading({ what = 'Loading' }: { what?: string }) {
  return (
    <p class="muted" role="status">
      {what}…
    </p>
  );
}

/** An API failure in plain words; 404 is "not found" (another tenant's scan looks exactly like a missing one). */
export function ErrorBox({ error, what }: { error: ApiFailure; what?: string }) {
  if (error.status === 404) {
    return (
      <div class="notice error" role="alert">
        <h2>Not found</h2>
        <p>{what ? `${what} was not found.` : 'Not found.'} It may not exist, or it belongs to another account.</p>
      </div>
    );
  }
  const upgrade = typeof error.body?.upgrade_url === 'string' ? localLink(error.body.upgrade_url) : undefined;
  return (
    <div class="notice error" role="alert">
      <p>
        <strong>{error.status ? `${error.status} ${error.code}` : error.code}</strong>: {error.message}
      </p>
      {error.body?.fields && (
        <ul>
          {error.body.fields.map((f) => (
            <li key={f.field}>
              <code>{f.field}</code> {f.message}
            </li>
          ))}
        </ul>
      )}
      {upgrade && (
        <p>
          <a href={upgrade}>See plans and upgrade</a>
        </p>
      )}
    </div>
  );
}

/** A link into this dashboard (upgrade_url, dashboard_url) opened in place, whatever host the server named. */
function localLink(url: string): string {
  try {
    const parsed = new URL(url, window.location.href);
    return parsed.pathname.startsWith('/app/') ? parsed.pathname + parsed.search : url;
  } catch {
    return url;
  }
}

export function Badge({ kind, children }: { kind: string; children: ComponentChildren }) {
  return <span class={`badge b-${kind}`}>{children}</span>;
}

export function Pager({ page, totalPages, onPage }: { page: number; totalPages: number; onPage: (page: number) => void }) {
  if (totalPages <= 1) return null;
  return (
    <nav class="pager" aria-label="Pages">
      <button type="button" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Previous
      </button>
      <span>
        Page {page} of {totalPages}
      </span>
      <button type="button" disabled={page >= totalPages} onClick={() => onPage(page + 1)}>
        Next
      </button>
    </nav>
  );
}

export function duration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return '–';
  if (seconds < 60) return `${seconds.toFixed(seconds < 10 ? 1 : 0)} s`;
  const minutes = Math.floor(seconds / 60);
  return `${minutes} min ${Math.round(seconds % 60)} s`;
}

export function since(start: string, end: string | null | undefined): number | undefined {
  if (!end) return undefined;
  return (Date.parse(end) - Date.parse(start)) / 1000;
}

export function when(timestamp: string | null | undefined): string {
  if (!timestamp) return '–';
  const date = new Date(timestamp);
  return Number.isNaN(date.getTime()) ? timestamp : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

export function percent(value: number | null | undefined, digits = 1): string {
  return value === null || value === undefined ? '–' : `${value.toFixed(digits)} %`;
}

export function Meter({ label, used, limit }: { label: string; used: number; limit: number | null }) {
  const ratio = limit === null ? 0 : limit === 0 ? 1 : Math.min(1, used / limit);
  const state = limit === null ? 'ok' : ratio >= 1 ? 'over' : ratio > 0.8 ? 'warn' : 'ok';
  return (
    <div class="meter-row">
      <div class="meter-label">
        <span>{label}</span>
        <span>
          {used} / {limit === null ? 'unlimited' : limit}
          {state === 'warn' && ' (over 80 %)'}
          {state === 'over' && ' (used up)'}
        </span>
      </div>
      <div class={`meter m-${state}`} role="meter" aria-label={label} aria-valuemin={0} aria-valuemax={limit ?? used} aria-valuenow={used}>
        <div class="meter-fill" style={{ width: `${ratio * 100}%` }} />
        <div class="meter-mark" title="80 % of the quota" />
      </div>
    </div>
  );
}
