/** API shapes (issue 26): required filters, page sizes, public content and optional authentication, each against its fixed twin. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecurityEngine } from '../../../src/engines/security/index.js';
import type { Task } from '../../../src/domain/scan.js';
import { TOKENS, shapesSpec, startShapes, type ShapesFixture } from '../../fixtures/api-shapes/server.js';
import { hugePageSize, itemCount } from '../../../src/engines/security/checks/resource-consumption.js';
import { sameContent } from '../../../src/engines/security/checks/authz.js';
import { isSelfRead } from '../../../src/engines/security/identities.js';
import { inject, injectionPoints } from '../../../src/engines/security/synth.js';
import { uniqueBody } from '../../../src/engines/security/unique-values.js';
import { IdentifierMoves, findMoved, identifierShown, movedIdentifier } from '../../../src/engines/security/moves.js';
import type { Operation, TargetResponse } from '../../../src/engines/security/types.js';
import { makeCtx } from './helpers.js';

const AUTH = { type: 'bearer' as const, token: TOKENS.alice, secondary: { type: 'bearer' as const, token: TOKENS.bob } };

async function scan(fx: ShapesFixture, checks: string[]): Promise<Task[]> {
  const out = await createSecurityEngine({ tuning: { onlyChecks: checks } }).run(makeCtx({ url: fx.url, spec_text: JSON.stringify(shapesSpec()), auth: AUTH }));
  return out.tasks;
}

const task = (tasks: Task[], endpoint: string, name: RegExp) => tasks.filter((t) => t.endpoint === endpoint && name.test(t.name));

describe.each([false, true])('api shapes (fixed: %s)', (fixed) => {
  let fx: ShapesFixture;
  beforeAll(async () => {
    fx = await startShapes({ fixed });
  });
  afterAll(async () => {
    await fx?.close();
  });

  it('fills a required filter with a value harvested from the target, and sees the data it selects', async () => {
    const tasks = await scan(fx, ['data-exposure']);
    const [exposure] = task(tasks, 'GET /articles/by-author', /Sensitive data/);
    expect(exposure?.status, exposure?.evidence).toBe(fixed ? 'passed' : 'failed');
    if (!fixed) expect(exposure.evidence).toMatch(/author=carol/);
    // The optional filters of the list are left out: the list shows the seeded articles.
    expect(tasks.filter((t) => t.status === 'failed' && t.endpoint !== 'GET /articles/by-author' && t.endpoint !== 'GET /people')).toEqual([]);
  }, 120_000);

  it('reports a page size 1,000 times the default accepted without a clamp, without relying on timing', async () => {
    const tasks = await scan(fx, ['resource-consumption']);
    const [items] = task(tasks, 'GET /items', /Oversized page size accepted in query parameter limit/);
    expect(items?.status, items?.evidence).toBe(fixed ? 'passed' : 'failed');
    if (!fixed) {
      expect(items.severity).toBe('medium');
      expect(items.evidence).toMatch(/limit=20000/);
      expect(items.evidence).toMatch(/60 items/);
    }
    const [strict] = task(tasks, 'GET /items/strict', /Oversized page size accepted in query parameter limit/);
    expect(strict?.status, strict?.evidence).toBe('passed');
  }, 120_000);

  it('injects into fields inside envelopes ({"user": {...}}, JSON:API data.attributes)', async () => {
    const tasks = await scan(fx, ['sql-injection']);
    for (const [endpoint, field] of [
      ['POST /users', 'user.username'],
      ['POST /comments', 'data.attributes.text'],
    ]) {
      const [sqli] = task(tasks, endpoint, new RegExp(`SQL injection.*body field ${field.replace(/\./g, '\\.')}$`));
      expect(
        sqli?.status,
        `${endpoint} ${field}: ${tasks
          .filter((t) => t.endpoint === endpoint)
          .map((t) => t.name)
          .join(', ')}`,
      ).toBe(fixed ? 'passed' : 'failed');
    }
  }, 120_000);

  it('follows an article to the slug its update moved it to: deletes, BOLA deletes of its comments and the clean-up use the current slug', async () => {
    const tasks = await scan(fx, ['bola']);
    const [comment] = task(tasks, 'DELETE /articles/{slug}/comments/{id}', /deletable by another/);
    // Fixed: the other identity's delete is refused (403) and nobody deleted a comment during the checks, so the verdict rule leaves it untested.
    if (fixed) expect(comment?.status, comment?.evidence).not.toBe('failed');
    else {
      expect(comment?.status, comment?.evidence).toBe('failed');
      expect(comment.severity).toBe('critical');
    }
    // Articles are their authors' alone in both variants: the other identity's update reaches the check (403 under the current slug, after the owner's update moved it).
    expect(task(tasks, 'PUT /articles/{slug}', /by another/).map((t) => t.status)).toEqual(['passed']);
    expect(task(tasks, 'DELETE /articles/{slug}', /by another/).filter((t) => t.status === 'failed')).toEqual([]);
    // The clean-up found every article the scan created under its current slug.
    expect(fx.created().articles).toEqual([]);
  }, 120_000);

  it('compares sibling versions with the documented one asked the same way: a skipped field filter is high, an identical alias informational, 404 passed', async () => {
    const tasks = await scan(fx, ['inventory']);
    const [members] = task(tasks, 'GET /v1/members', /Older API version/);
    if (fixed) expect([members?.status, members?.severity], members?.evidence).toEqual(['failed', 'info']);
    else {
      expect([members?.status, members?.severity], members?.evidence).toEqual(['failed', 'high']);
      expect(members.evidence).toMatch(/password_hash/);
      expect(members.evidence).toMatch(/with the primary identity's credentials/);
    }
    const [catalog] = task(tasks, 'GET /v1/catalog', /Older API version/);
    expect([catalog?.status, catalog?.severity], catalog?.evidence).toEqual(['failed', 'info']);
    const [stores] = task(tasks, 'GET /v1/stores', /Older API version/);
    expect(stores?.status).toBe('passed');
  }, 120_000);

  it('tries a write on a catalogue entry the second identity did not create, and an identifier in the body, as authorization probes', async () => {
    const tasks = await scan(fx, ['bola', 'bfla']);
    const [put] = task(tasks, 'PUT /products/{id}', /did not create reaches past authorization/);
    const [profile] = task(tasks, 'PUT /profile', /identifier in the body/);
    if (fixed) {
      // Refused (403) to the second identity; nobody of the scan reached these writes, so the verdict rule may leave them untested.
      expect(put?.status, put?.evidence).not.toBe('failed');
      expect(profile?.status, profile?.evidence).not.toBe('failed');
      expect(fx.catalogue().writes).toEqual([]);
    } else {
      expect([put?.status, put?.severity], put?.evidence).toEqual(['failed', 'high']);
      expect(put.evidence).toMatch(/nothing changed/);
      expect([profile?.status, profile?.severity], profile?.evidence).toEqual(['failed', 'critical']);
      expect(profile.parameter).toBe('user_id');
      // The second identity's write got through (with the entry's own values: nothing changed).
      expect(fx.catalogue().writes.some((w) => w.by === 'bob')).toBe(true);
    }
    // Entries the scan did not create are never deleted.
    expect(fx.catalogue().ids).toEqual([1, 2]);
  }, 120_000);

  it("reports other users' card data by meaning and secrets, not the caller's own note in a secret-named field", async () => {
    const tasks = await scan(fx, ['data-exposure']);
    const [people] = task(tasks, 'GET /people', /Sensitive data/);
    expect(people?.status, people?.evidence).toBe(fixed ? 'passed' : 'failed');
    if (!fixed) expect(people.severity).toBe('critical');
    // The caller's own profile shows the note it wrote in its `secret` field: its own content, on both sides.
    const [profile] = task(tasks, 'GET /profile', /Sensitive data/);
    expect(profile?.status, profile?.evidence).toBe('passed');
    // A draft's `secret` is written only by its author's update, and read back by it: its own content too.
    const [draft] = task(tasks, 'GET /drafts/{id}', /Sensitive data/);
    expect(draft?.status, draft?.evidence).toBe('passed');
  }, 120_000);

  it('does not take public content for a BOLA read, nor optional authentication for missing authentication', async () => {
    const tasks = await scan(fx, ['bola', 'auth-enforcement']);
    // Posts are everyone's to read: no BOLA, whoever created them.
    expect(task(tasks, 'GET /posts/{slug}', /readable by another/).filter((t) => t.status === 'failed')).toEqual([]);
    // Answered the same with and without a token: optional authentication, an informational note at most.
    for (const endpoint of ['GET /posts', 'GET /posts/{slug}']) {
      const found = task(tasks, endpoint, /Authentication enforced with no credentials/);
      expect(found.length, endpoint).toBeGreaterThan(0);
      for (const t of found) expect(t.severity === 'info', `${endpoint}: ${t.severity} ${t.evidence}`).toBe(true);
    }
    // Private notes: anonymous callers are refused, another identity reads them (the flaw) or gets 404 (fixed).
    const [note] = task(tasks, 'GET /notes/{id}', /readable by another/);
    expect(note?.status, note?.evidence).toBe(fixed ? 'passed' : 'failed');
    if (!fixed) expect(note.severity).toBe('high');
    // The caller's own profile answered without a token: missing authentication, high.
    const [user] = task(tasks, 'GET /user', /Authentication enforced with no credentials/);
    expect(user?.status, user?.evidence).toBe(fixed ? 'passed' : 'failed');
    if (!fixed) expect(user.severity).toBe('high');
  }, 120_000);
});

describe('an update answered 204 that moved its article', () => {
  let fx: ShapesFixture;
  beforeAll(async () => {
    fx = await startShapes({ fixed: false, quietUpdates: true });
  });
  afterAll(async () => {
    await fx?.close();
  });

  it('reads the article again, finds it in the list under its new slug, and keeps using that one', async () => {
    const tasks = await scan(fx, ['bola']);
    const [comment] = task(tasks, 'DELETE /articles/{slug}/comments/{id}', /deletable by another/);
    expect(comment?.status, comment?.evidence).toBe('failed');
    expect(task(tasks, 'PUT /articles/{slug}', /by another/).map((t) => t.status)).toEqual(['passed']);
    expect(fx.created().articles).toEqual([]);
  }, 120_000);
});

describe('an identity that logs in through an enveloped login (RealWorld and Rails style)', () => {
  let fx: ShapesFixture;
  beforeAll(async () => {
    fx = await startShapes({ fixed: true });
  });
  afterAll(async () => {
    await fx?.close();
  });

  const logIn = (email: string, password: string) =>
    fetch(`${fx.url}/users/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ user: { email, password } }) });

  it('logs in with {"user": {"email", "password"}}, takes the token from the answer\'s envelope, and never sends its own login attributes to PUT /user', async () => {
    // dave registers, as the target's users do; the scan is given his email and password only.
    const reg = await fetch(`${fx.url}/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ user: { username: 'dave', email: 'dave@example.com', password: 'dave-password-1' } }),
    });
    expect(reg.status).toBe(201);
    const outcome = await createSecurityEngine({}).run(
      makeCtx({
        url: fx.url,
        spec_text: JSON.stringify(shapesSpec()),
        auth: { type: 'login', username: 'dave@example.com', password: 'dave-password-1', login: { operation: 'POST /users/login' } },
      }),
    );
    const primary = outcome.security!.coverage.identities!.find((i) => i.identity === 'primary');
    expect(primary, JSON.stringify(outcome.security!.coverage.identities)).toMatchObject({ verified: true });
    expect(primary?.lost_at).toBeUndefined();
    // The current user's update was reached with dave's credential (its bio), and his login is as it was.
    const update = outcome.security!.coverage.operations.find((o) => o.endpoint === 'PUT /user');
    expect(update?.reached_2xx.primary, JSON.stringify(update)).toBe(true);
    const again = await logIn('dave@example.com', 'dave-password-1');
    expect(again.status).toBe(200);
    expect(((await again.json()) as { user: { username: string } }).user.username).toBe('dave');
  }, 300_000);

  it("keeps a token identity's own login attributes out of its enveloped current-user update (PUT /user)", async () => {
    const reg = await fetch(`${fx.url}/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ user: { username: 'erin', email: 'erin@example.com', password: 'erin-password-1' } }),
    });
    const { user } = (await reg.json()) as { user: { token: string } };
    const outcome = await createSecurityEngine({}).run(
      makeCtx({ url: fx.url, spec_text: JSON.stringify(shapesSpec()), auth: { type: 'bearer', token: user.token } }),
    );
    expect(outcome.security!.coverage.operations.find((o) => o.endpoint === 'PUT /user')?.reached_2xx.primary).toBe(true);
    const again = await logIn('erin@example.com', 'erin-password-1');
    expect(again.status).toBe(200);
    expect(((await again.json()) as { user: { username: string } }).user.username).toBe('erin');
  }, 300_000);
});

describe('page-size probe', () => {
  it('asks for 1,000 times the default, past any declared maximum, and counts the items of a list answer', () => {
    expect(hugePageSize({ kind: 'query', name: 'limit', schema: { type: 'integer', default: 20 }, value: '20' })).toBe(20000);
    expect(hugePageSize({ kind: 'query', name: 'per_page', schema: { type: 'integer', example: 10 }, value: '10' })).toBe(10000);
    expect(hugePageSize({ kind: 'query', name: 'size', schema: { type: 'integer', default: 10, maximum: 50000 }, value: '10' })).toBe(50001);
    expect(hugePageSize({ kind: 'query', name: 'top', schema: { type: 'integer' }, value: '1' })).toBe(20000);
    expect(itemCount([1, 2, 3])).toBe(3);
    expect(itemCount({ count: 80, results: [1, 2] })).toBe(2);
    expect(itemCount({ data: { items: [1, 2, 3, 4] }, meta: { limit: 4 } })).toBe(4);
    expect(itemCount({ id: 1 })).toBeUndefined();
  });
});

describe('same content', () => {
  const res = (body: unknown, status = 200) => ({ status, body: JSON.stringify(body) }) as TargetResponse;
  it('is the same answer apart from the fields that personalise it', () => {
    const anon = res({ article: { slug: 'a', title: 'A', author: { username: 'carol' } } });
    expect(sameContent(anon, res({ article: { slug: 'a', title: 'A', favorited: true, author: { username: 'carol', following: false } } }))).toBe(true);
    expect(sameContent(anon, res({ article: { slug: 'a', title: 'A', email: 'carol@example.com', author: { username: 'carol' } } }))).toBe(false);
    expect(sameContent(anon, res({ article: { slug: 'a', title: 'A', author: { username: 'carol' } } }, 401))).toBe(false);
  });

  it('compares bodies cut at the size limit by what both hold', () => {
    const rows = (personal: boolean) =>
      JSON.stringify({ posts: Array.from({ length: 400 }, (_, i) => ({ slug: `post-${i}`, title: `Post ${i}`, ...(personal ? { favorited: false } : {}) })) });
    const cut = (s: string) => ({ status: 200, body: s.slice(0, 8192) }) as TargetResponse;
    expect(sameContent(cut(rows(false)), cut(rows(true)))).toBe(true);
    expect(sameContent(cut(rows(false)), cut(rows(true).replace('post-7', 'post-x')))).toBe(false);
  });

  it("tells the caller's own account apart from shared reads", () => {
    const op = (path: string) => ({ method: 'GET', path }) as Operation;
    expect(isSelfRead(op('/user'))).toBe(true);
    expect(isSelfRead(op('/api/users/me'))).toBe(true);
    expect(isSelfRead(op('/articles'))).toBe(false);
    expect(isSelfRead(op('/users/{id}'))).toBe(false);
  });
});

describe('enveloped bodies', () => {
  const schema = {
    type: 'object',
    properties: {
      data: {
        type: 'object',
        properties: {
          type: { type: 'string', enum: ['articles'] },
          attributes: { type: 'object', properties: { title: { type: 'string' }, views: { type: 'integer' } } },
        },
      },
    },
  };
  const op = {
    key: 'POST /articles',
    method: 'POST',
    path: '/articles',
    params: [],
    body: { contentType: 'application/vnd.api+json', schema },
  } as unknown as Operation;

  it('finds body fields at any depth and injects at their place, keeping their siblings', () => {
    const points = injectionPoints(op).filter((p) => p.kind === 'body');
    expect(points.map((p) => p.name)).toEqual(['data.type', 'data.attributes.title', 'data.attributes.views']);
    const title = points.find((p) => p.name === 'data.attributes.title')!;
    expect(inject(op, title, "x'")).toEqual({ body: { data: { type: 'articles', attributes: { title: "x'", views: 1 } } } });
  });

  it('marks identifying fields inside envelopes, so what the scan creates does not collide', () => {
    const body = uniqueBody({ data: { attributes: { title: 'vigil', username: 'vigil' } } }, schema, 'vigil-abc123', 7) as {
      data: { attributes: Record<string, string> };
    };
    expect(body.data.attributes.title).toMatch(/vigil-abc123/);
    expect(body.data.attributes.username).toMatch(/vigil-abc123/);
  });
});

describe('identifiers that move', () => {
  const op = (path: string) => ({ key: `PUT ${path}`, method: 'PUT', path, params: [] }) as unknown as Operation;

  it('reads the new identifier from the answer, in an envelope or not, or from a Location on the same path', () => {
    expect(movedIdentifier(op('/articles/{slug}'), '/articles/old-title', { article: { slug: 'new-title', title: 'New title' } }, undefined, '')).toEqual({
      resource: 'article',
      param: 'slug',
      from: 'old-title',
      to: 'new-title',
    });
    expect(movedIdentifier(op('/things/{thingId}'), '/things/7', { data: { id: 8, attributes: { name: 'x' } } }, undefined, '')?.to).toBe(8);
    expect(movedIdentifier(op('/docs/{name}'), '/docs/a', undefined, '/api/docs/b', '/api')?.to).toBe('b');
    // Unchanged, or another resource's field of the same name: no move.
    expect(movedIdentifier(op('/articles/{slug}'), '/articles/same', { article: { slug: 'same' } }, undefined, '')).toBeUndefined();
    expect(movedIdentifier(op('/articles/{slug}'), '/articles/a', { article: { title: 'A', author: { slug: 'carol' } } }, undefined, '')).toBeUndefined();
  });

  it('finds a resource an update moved without saying: the one listed item holding what the update wrote', () => {
    const sent = { article: { title: 'New title', body: 'text' } };
    const list = {
      articles: [
        { slug: 'other', title: 'Other' },
        { slug: 'new-title', title: 'New title' },
      ],
      articlesCount: 2,
    };
    expect(findMoved(op('/articles/{slug}'), '/articles/old-title', sent, list)).toEqual({
      resource: 'article',
      param: 'slug',
      from: 'old-title',
      to: 'new-title',
    });
    // Two items hold it: no guess.
    const twice = { articles: [...list.articles, { slug: 'new-title-1', title: 'New title' }] };
    expect(findMoved(op('/articles/{slug}'), '/articles/old-title', sent, twice)).toBeUndefined();
    expect(identifierShown(op('/articles/{slug}'), undefined, undefined, '')).toBe(false);
    expect(identifierShown(op('/articles/{slug}'), { article: { slug: 'old-title' } }, undefined, '')).toBe(true);
  });

  it("follows a chain of moves, per resource (a comment's parent slug, not another resource's value)", () => {
    const moves = new IdentifierMoves();
    moves.note({ resource: 'article', param: 'slug', from: 'a', to: 'b' });
    moves.note({ resource: 'article', param: 'slug', from: 'b', to: 'c' });
    expect(moves.current(op('/articles/{slug}/comments/{id}'), 'slug', 'a')).toBe('c');
    expect(moves.current(op('/posts/{slug}'), 'slug', 'a')).toBe('a');
  });
});
