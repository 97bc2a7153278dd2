/** `vigil baselines list|approve|delete`: the visual baselines of the tenant, from a shell or a CI job. */
import { CONNECTION_HELP, CONNECTION_OPTIONS, clientFrom, guarded, printJson, table } from '../common.js';
import { didYouMean, parseCommandArgs, UsageError } from '../usage-error.js';

export const BASELINES_HELP = `Usage: vigil baselines <list|approve|delete> [options]

  list [--branch B] [--page-key K] [--page N] [--per-page N]
                                      The visual baselines, a page at a time
  approve <scan_id> --page <page> [--page <page>...] [--branch B]
                                      Make the screenshots a completed functional or full scan took
                                      of these pages their baselines (a page: its page key, e.g.
                                      /pricing, or its URL as in the scan's report); --all-changed
                                      instead of --page approves every page where the scan saw a change
  delete <baseline_id>                The next scan of the page records a new baseline
${CONNECTION_HELP}

Examples:
  vigil baselines approve scn_Vq3b9xk2Lm0aP1cD --page /pricing
  vigil baselines approve scn_Vq3b9xk2Lm0aP1cD --all-changed --branch main
  vigil baselines list --branch main --json`;

const OPTIONS = {
  ...CONNECTION_OPTIONS,
  page: { type: 'string', multiple: true },
  'all-changed': { type: 'boolean', default: false },
  branch: { type: 'string' },
  'page-key': { type: 'string' },
  'per-page': { type: 'string' },
} as const;

const SUBCOMMANDS = ['list', 'approve', 'delete'];

export async function baselinesCommand(args: string[]): Promise<number> {
  const { values: v, positionals } = parseCommandArgs(args, OPTIONS, true);
  const [sub, id] = positionals;
  if (v.help || !sub) {
    process.stdout.write(`${BASELINES_HELP}\n`);
    return v.help ? 0 : 3;
  }
  if (!SUBCOMMANDS.includes(sub)) throw new UsageError(`unknown baselines subcommand "${sub}"${didYouMean(sub, SUBCOMMANDS)} (list, approve, delete)`);
  if (sub !== 'list' && !id) throw new UsageError(`vigil baselines ${sub} needs ${sub === 'approve' ? 'a scan id' : 'a baseline id'}`);
  const pages = v.page ?? [];
  if (sub === 'approve' && pages.length === 0 && !v['all-changed'])
    throw new UsageError('vigil baselines approve needs --page <page> (repeatable) or --all-changed');
  if (sub === 'approve' && pages.length > 0 && v['all-changed']) throw new UsageError('give --page or --all-changed, not both');
  const json = Boolean(v.json);
  const client = clientFrom(v);
  return guarded(json, async () => {
    if (sub === 'list') {
      if (pages.length > 1 || (pages[0] !== undefined && !/^\d+$/.test(pages[0])))
        throw new UsageError('vigil baselines list takes --page <number> (the page of the list)');
      const page = pages[0];
      const { body } = await client.call('get', '/baselines', { query: { branch: v.branch, page_key: v['page-key'], page, per_page: v['per-page'] } });
      if (json) printJson(body);
      else {
        const rows = [
          ['baseline_id', 'page_key', 'viewport', 'device', 'branch', 'updated_at'],
          ...body.baselines.map((b) => [b.baseline_id, b.page_key, b.viewport, b.device, b.branch, b.updated_at]),
        ];
        process.stdout.write(`${table(rows)}\npage ${body.page} of ${body.total_pages} (${body.total} baselines)\n`);
      }
      return 0;
    }
    if (sub === 'delete') {
      await client.call('delete', '/baselines/{id}', { path: { id: id! } });
      if (json) printJson({ baseline_id: id, deleted: true });
      else process.stdout.write(`baseline ${id} deleted\n`);
      return 0;
    }
    const chosen = pages.length > 0 ? pages : await changedPages(client, id!);
    if (chosen.length === 0) {
      if (json) printJson({ scan_id: id, approved: [] });
      else process.stdout.write(`scan ${id} saw no visual change: nothing to approve\n`);
      return 0;
    }
    const approved = [];
    for (const page of chosen) {
      const { body } = await client.call('post', '/baselines/approve', { json: { scan_id: id!, page, ...(v.branch ? { branch: v.branch } : {}) } });
      approved.push(body);
      if (!json) process.stdout.write(`approved ${body.page_key} (${body.viewport}, ${body.device}) on ${body.branch}: ${body.baseline_id}\n`);
    }
    if (json) printJson({ scan_id: id, approved });
    return 0;
  });
}

/** The pages of a scan's visual regression report where a change was detected (by URL, as approve takes them). */
async function changedPages(client: ReturnType<typeof clientFrom>, scanId: string): Promise<string[]> {
  const { body } = await client.call('get', '/scan/{id}/results', { path: { id: scanId } });
  return (body.visual_regression?.comparisons ?? []).filter((c) => c.diff_detected).map((c) => c.page_url);
}
