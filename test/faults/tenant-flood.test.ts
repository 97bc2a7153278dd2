/**
 * One tenant floods a slow target (a tarpit: every scan takes seconds) at its own concurrency cap while
 * another tenant's short scans are timed (DESIGN.md round 3, fair queue). The flooder holds every slot
 * before the other tenant arrives; from the first freed slot on, the other tenant is served first (it
 * has fewer running scans) and the flooder takes no slot beyond half of the process's while the other
 * tenant waits. Asserted by order, not by timing: every one of the other tenant's scans starts before the
 * flooder's last queued scan, which first-come-first-served would have run first.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startServer, storeLabel, waitForScan, type TestServer } from '../helpers/server.js';
import { sleep } from './cluster.js';

const TARPIT_MS = 3000;
const FLOOD = 10;
const SLOTS = 4;

describe(`one tenant flooding a tarpit does not starve another (${storeLabel})`, () => {
  let server: TestServer;
  let flooder: { tenantId: string; apiKey: string };
  let other: { tenantId: string; apiKey: string };

  beforeAll(async () => {
    server = await startServer({ env: { VIGIL_WORKER_CONCURRENCY: String(SLOTS), VIGIL_CONCURRENT_SCANS: 'free=1,pro=3,team=10,enterprise=25' } });
    flooder = await server.createTenant('team');
    other = await server.createTenant('team');
  });
  afterAll(async () => server?.stop());

  const start = async (apiKey: string, url: string) => {
    const res = await call(`${server.api}/scan`, { headers: { 'X-API-Key': apiKey }, json: { url, mode: 'functional' } });
    expect(res.status, res.text).toBe(202);
    return res.body.scan_id as string;
  };

  it('serves the other tenant from the first freed slot; the flooder keeps at most half while it waits', async () => {
    const flood: string[] = [];
    for (let i = 0; i < FLOOD; i++) flood.push(await start(flooder.apiKey, `http://target.test/tarpit?delay_ms=${TARPIT_MS}&n=${i}`));
    // The flooder holds every slot (nobody else was waiting) before the other tenant comes.
    const db = server.vigil.services.store.db;
    for (let i = 0; ; i++) {
      const running = await db.selectFrom('scans').select('id').where('tenant_id', '=', flooder.tenantId).where('status', '=', 'running').execute();
      if (running.length === SLOTS) break;
      if (i > 600) throw new Error(`the flooder never held all ${SLOTS} slots`);
      await sleep(50);
    }
    const mine: string[] = [];
    for (let i = 0; i < 3; i++) mine.push(await start(other.apiKey, `http://target.test/quick?delay_ms=100&n=${i}`));
    // While the other tenant has queued scans, sample how many slots the flooder holds.
    // A slot the flooder took when nobody else waited stays its own until that scan ends (no preemption);
    // what is checked is that it takes no slot beyond half while the other tenant waits.
    let flooderRisesAboveShare = 0;
    let flooderMaxWhileOtherQueued = 0;
    let otherQueued = true;
    const sampler = (async () => {
      let freed = false;
      let previous = SLOTS;
      while (otherQueued) {
        const rows = await db.selectFrom('scans').select(['tenant_id', 'status']).where('status', 'in', ['queued', 'running']).execute();
        const flooderRunning = rows.filter((r) => r.tenant_id === flooder.tenantId && r.status === 'running').length;
        otherQueued = rows.some((r) => r.tenant_id === other.tenantId && r.status === 'queued');
        // Until the first slot frees, the flooder holds the slots it took when nobody else waited.
        if (flooderRunning < SLOTS) freed = true;
        if (freed && otherQueued) {
          flooderMaxWhileOtherQueued = Math.max(flooderMaxWhileOtherQueued, flooderRunning);
          if (flooderRunning > previous && flooderRunning > SLOTS / 2) flooderRisesAboveShare++;
        }
        previous = flooderRunning;
        await sleep(25);
      }
    })();
    for (const id of mine) await waitForScan(server.api, other.apiKey, id, ['completed'], 120_000);
    otherQueued = false;
    await sampler;
    for (const id of flood) await waitForScan(server.api, flooder.apiKey, id, ['completed'], 120_000);

    const rows = await db
      .selectFrom('scans')
      .select(['id', 'tenant_id', 'created_at', 'started_at'])
      .where('id', 'in', [...flood, ...mine])
      .execute();
    const startedAt = (id: string) => Date.parse(rows.find((r) => r.id === id)!.started_at!);
    const waits = mine.map((id) => startedAt(id) - Date.parse(rows.find((r) => r.id === id)!.created_at));
    const lastFlood = Math.max(...flood.map(startedAt));
    const floodStartsAfterOther = flood.filter((id) => startedAt(id) > Math.max(...mine.map(startedAt))).length;
    console.log(
      `[faults] tenant flood (${storeLabel}): ${FLOOD} scans of ${TARPIT_MS} ms on ${SLOTS} slots; the other tenant's queue waits ${waits.map((w) => `${w} ms`).join(', ')} ` +
        `(one tarpit scan is ${TARPIT_MS} ms); ${floodStartsAfterOther} flood scans started after all of the other tenant's; flooder held at most ${flooderMaxWhileOtherQueued} slots while the other waited (borrowed before it came), took ${flooderRisesAboveShare} beyond half meanwhile`,
    );
    for (const id of mine) expect(startedAt(id)).toBeLessThan(lastFlood);
    expect(floodStartsAfterOther).toBeGreaterThan(0);
    expect(flooderRisesAboveShare).toBe(0);
  }, 180_000);
});
