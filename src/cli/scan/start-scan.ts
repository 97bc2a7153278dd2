/** Sends the start of a scan: JSON, or multipart with a local spec file; patiently, with one idempotency key. */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { ResponseBody } from '../../api-client/calls.js';
import type { VigilClient } from '../client.js';
import { acceptingBudgets } from '../budgets.js';
import { startPatiently, type Patience } from '../follow.js';
import type { StartScanRequest } from './start-request.js';

export type StartedScan = ResponseBody<'post', '/scan'> | ResponseBody<'post', '/scan/upload'>;

/**
 * The server's 202 answer; an ApiFailure when it refused (after waiting as `patience` allows). A server
 * older than accessibility budgets is asked again without them (`acceptingBudgets`, said on `log`).
 */
export async function startScan(
  client: VigilClient,
  body: StartScanRequest,
  specFile: string | undefined,
  patience: Patience,
  log: (line: string) => void,
): Promise<StartedScan> {
  // One key for this run's start, sent with every attempt: a retry after a lost answer never starts (or charges) a second scan.
  const idempotency = { 'Idempotency-Key': `vigil-cli-${randomUUID()}` };
  return startPatiently(
    acceptingBudgets(body, idempotency, log, async () => {
      if (specFile) {
        const form = new FormData();
        form.set('base_url', body.url);
        if (body.mode) form.set('mode', String(body.mode));
        if (body.auth) form.set('auth', JSON.stringify(body.auth));
        if (body.options) form.set('options', JSON.stringify(body.options));
        if (body.reset_baseline) form.set('reset_baseline', 'true');
        if (body.ci) form.set('ci', JSON.stringify(body.ci));
        form.set('spec_file', new Blob([readFileSync(specFile)]), basename(specFile));
        return (await client.call('post', '/scan/upload', { form, headers: idempotency })).body;
      }
      return (await client.call('post', '/scan', { json: body, headers: idempotency })).body;
    }),
    patience,
    true,
  );
}
