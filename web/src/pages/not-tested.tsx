/** What a finished security or full scan did not test, and why: shown first on the scan page (the results' `not_tested`). */
import type { Results } from '../types.js';

type NotTested = NonNullable<Results['not_tested']>;

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

function Which({ endpoints }: { endpoints: readonly string[] }) {
  if (endpoints.length === 0) return null;
  return (
    <details>
      <summary>which</summary>
      <ul class="endpoints">
        {endpoints.map((e) => (
          <li key={e}>
            <code>{e}</code>
          </li>
        ))}
      </ul>
    </details>
  );
}

/** Nothing when everything was tested, or when the results have no security section. */
export function NotTestedSummary({ summary }: { summary: NotTested | null | undefined }) {
  if (!summary || summary.everything_tested) return null;
  return (
    <section class="notice error not-tested" aria-labelledby="not-tested-title" data-testid="not-tested">
      <h2 id="not-tested-title">Not tested</h2>
      <p>
        <strong data-testid="not-tested-headline">{summary.headline}</strong>
      </p>
      {summary.causes.length > 0 && (
        <ul>
          {summary.causes.map((c) => (
            <li key={c.text} data-cause={c.kind}>
              {c.text}
            </li>
          ))}
        </ul>
      )}
      {summary.operations.reasons.length > 0 && (
        <>
          <h3>Operations</h3>
          <ul>
            {summary.operations.reasons.map((r) => (
              <li key={r.reason}>
                {plural(r.count, 'operation')}: {r.reason}
                <Which endpoints={r.endpoints} />
              </li>
            ))}
          </ul>
        </>
      )}
      {summary.checks.reasons.length > 0 && (
        <>
          <h3>
            Checks ({summary.checks.not_tested} of {plural(summary.checks.runs, 'check run')} not tested)
          </h3>
          <ul>
            {summary.checks.reasons.map((r) => (
              <li key={r.reason}>
                {plural(r.count, 'check run')}: {r.reason}{' '}
                <span class="muted">({r.checks.map((c) => `${c.title} ${c.count}${c.reason === r.reason ? '' : `: ${c.reason}`}`).join('; ')})</span>
                <Which endpoints={[...new Set(r.checks.flatMap((c) => c.endpoints))]} />
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
