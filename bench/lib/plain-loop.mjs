// The security bench's baseline in its own process: replays the requests the engine sent (method, path,
// headers, body) through one undici Agent with `concurrency` connections, reading every body. On
// {run: {url, requests, concurrency}} answers {ms, cpuUs}.
import { Agent, request } from 'undici';

process.on('message', async (m) => {
  if (m.stop) process.exit(0);
  const { url, requests, concurrency } = m.run;
  const sent = requests.map((r) => ({ ...r, body: r.body ? Buffer.from(r.body, 'base64') : undefined }));
  const agent = new Agent({ connections: concurrency });
  let next = 0;
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < sent.length) {
        const r = sent[next++];
        const res = await request(url + r.path, { method: r.method, headers: r.headers, body: r.body, dispatcher: agent });
        await res.body.text();
      }
    }),
  );
  const ms = performance.now() - t0;
  const c = process.cpuUsage(c0);
  await agent.close();
  process.send({ ms, cpuUs: c.user + c.system });
});
process.send({ ready: true });
