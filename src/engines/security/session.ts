/** One scan's shared state: target client, API model, credentials, evidence formatting. */
import { TargetCredentials } from '../credentials.js';
import { LoginFailure, pointerToken, type LoginEndpoint } from '../login.js';
import { compileExclude as compileExcludePatterns } from '../../domain/exclude.js';
import { Redactor, scanCredentials } from '../../domain/redaction.js';
import { logsIn, type NotRunReason, type TargetAuth } from '../../domain/scan.js';
import { randomBytes } from 'node:crypto';
import type { Attempt } from './verdict.js';
import {
  IdentityWatch,
  OWN_ACCOUNT_REASON,
  bodyFields,
  isLoginAttribute,
  isSelfRead,
  isSelfWrite,
  loginFields,
  lostReason,
  setsLoginAttribute,
  withheld,
  withoutLoginAttributes,
} from './identities.js';
import type { TargetClient } from './client.js';
import { CoverageRecorder } from './coverage.js';
import { ResourcePool, keysForParam, normKey, resourceOf } from './resources.js';
import { IdentifierMoves, agreedWith, findMoved, identifierShown, movedIdentifier, pathValuesOf, unwrapEnvelope, type Move } from './moves.js';
import { phaseOf } from './phases.js';
import { buildRequest, sampleBody } from './synth.js';
import { isAuthOperation, uniqueBody } from './unique-values.js';
import { BULK_WRITE_REASON, bulkFilters, bulkWrite, filteredToOwnRecord } from './bulk-writes.js';
import type { ScanCeiling } from './ceiling.js';
import type {
  ApiModel,
  CheckContext,
  CreatedResource,
  HarvestedValue,
  Identity,
  Operation,
  Overrides,
  RequestSpec,
  SecurityTuning,
  TargetResponse,
} from './types.js';

const JWT = /^[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*$/;
/** Claims that name the token's user: filed as that identity's own values. */
const IDENTITY_CLAIMS = ['sub', 'username', 'user_name', 'preferred_username', 'user', 'login', 'email', 'user_id', 'userId', 'uid', 'id', 'name'];

/** The answers one check run got (see ScanSession.track). */
interface AttemptLog {
  op?: Operation;
  attempts: Attempt[];
  last?: TargetResponse;
}

export interface SessionOptions {
  /** options.safe_mode. */
  safeMode?: boolean;
  /** Marker of what the scan creates; random by default. */
  marker?: string;
}

/** Path characters WHATWG URL parsing leaves untouched (percent-escapes included), and dot segments it would resolve. */
const SAFE_PATH = /^[A-Za-z0-9\-._~!$&'()*+,;=:@%/]*$/;
const DOT_SEGMENT = /(^|\/)(\.|%2e){1,2}(\/|$)|%2e%2e|\.%2e|%2e\./i;

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE']);

const SECRET_HEADER = /^(authorization|proxy-authorization|cookie|set-cookie|x-api-key|x-auth-token|api-key)$/i;

/**
 * Masks a credential-looking value that is not one of the scan's own credentials (those are
 * redacted whole before this runs): a value of 16 characters or more keeps its first four so the
 * reader can tell which one it was; a shorter one shows nothing.
 */
function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

export function maskSecret(v: string): string {
  if (v.length < 16) return '****';
  return `${v.slice(0, 4)}****`;
}

/** options.exclude for operations (the rule of domain/exclude.ts): matched against the path template, "METHOD /path" and the request URL. */
export function compileExclude(patterns: string[]): (op: Operation, url: string) => boolean {
  const excluded = compileExcludePatterns(patterns);
  return (op, url) => excluded(op.path, op.key, url);
}

export class ScanSession implements CheckContext {
  /** "METHOD /path" answering 401 even with a freshly fetched token: a 401 there is not about the token. */
  private noRefresh = new Set<string>();
  /** Response bodies as evidence may show them (the scan's credentials redacted), computed once per response. */
  private shownBodies = new WeakMap<TargetResponse, string>();
  constructor(
    readonly client: TargetClient,
    /** Set once the spec is loaded (the session exists earlier so spec fetches share its OAuth2 token). */
    public model: ApiModel,
    readonly targetUrl: string,
    readonly auth: (TargetAuth & { secondary?: TargetAuth }) | undefined,
    readonly tuning: SecurityTuning,
    readonly signal: AbortSignal,
    /** The scan's redactor (the runner's, so access tokens fetched here are masked in results and logs too). */
    readonly redactor: Redactor = new Redactor(),
    options: SessionOptions = {},
  ) {
    for (const s of scanCredentials(auth)) redactor.add(s);
    this.credentials = new TargetCredentials((req) => client.send(req), redactor, targetUrl);
    this.credentials.resolveLogin = (operation) => this.loginEndpoint(operation);
    this.safeMode = options.safeMode ?? false;
    this.marker = options.marker ?? `vigil-${randomBytes(3).toString('hex')}`;
    this.coverage = new CoverageRecorder(this.hasSecondary);
  }

  readonly safeMode: boolean;
  readonly marker: string;
  /** Credential headers per identity (OAuth2 tokens fetched through the guarded client, shared by the whole scan). */
  private readonly credentials: TargetCredentials;
  /** Set by the engine once exclusions are known; the whole model until then. */
  private scanned?: Operation[];
  get operations(): Operation[] {
    return this.scanned ?? this.model.operations;
  }
  set operations(ops: Operation[]) {
    this.scanned = ops;
  }
  readonly coverage: CoverageRecorder;
  readonly pool = new ResourcePool();
  /** Identifiers the scan's updates moved (a slug derived from a changed title): requests use the current one. */
  readonly moves = new IdentifierMoves();
  /** The scan's ceiling on time spent on the target (ceiling.ts): past it, requests are withheld. */
  ceiling?: ScanCeiling;
  private readonly createdList: CreatedResource[] = [];
  private readonly jwtList: { token: string; identity: Identity; source: string }[] = [];
  private readonly baselines = new Map<Operation, Map<Identity, Promise<TargetResponse>>>();
  private readonly jsonCache = new WeakMap<TargetResponse, { v: unknown }>();
  private uniqueCounter = 0;
  /** Methods of the session bound to it, handed out by the views `track` gives checks. */
  private readonly boundMethods = new Map<PropertyKey, unknown>();

  /**
   * Runs a check, collecting the answers its operation gave it (its baseline included when it used one).
   * The check gets a view of the session whose `send` and `baseline` note into this run's log; everything
   * else is the session's own. (An AsyncLocalStorage did this before: it made every promise of the
   * process pay a hook, a quarter of the engine's CPU per request.)
   */
  async track<T>(op: Operation | undefined, fn: (ctx: ScanSession) => Promise<T>): Promise<{ value: T; attempts: Attempt[]; last?: TargetResponse }> {
    const log: AttemptLog = { op, attempts: [] };
    const value = await fn(this.viewFor(log));
    return { value, attempts: log.attempts, last: log.last };
  }

  /** The session as one check run sees it: its sends and baselines noted into `log`. */
  private viewFor(log: AttemptLog): ScanSession {
    const send = (req: RequestSpec) => this.sendNoted(req, log);
    const baseline = (op: Operation, identity?: Identity) => this.baselineNoted(op, identity, log);
    const bound = this.boundMethods;
    return new Proxy(this, {
      get(session, key) {
        if (key === 'send') return send;
        if (key === 'baseline') return baseline;
        const v = Reflect.get(session, key);
        if (typeof v !== 'function') return v;
        let b = bound.get(key);
        if (!b) bound.set(key, (b = v.bind(session)));
        return b;
      },
    });
  }

  /** `sent`: the check sent it now (not a cached baseline); its last such request is the evidence if the target goes down. */
  private noteAttempt(log: AttemptLog | undefined, op: Operation | undefined, res: TargetResponse, sent: boolean): void {
    if (!log) return;
    if (sent) log.last = res;
    if (op && log.op === op) log.attempts.push({ status: res.status, ...(res.withheld ? { withheld: res.withheld } : {}) });
  }

  get knownUsername(): string | undefined {
    if ((this.auth?.type === 'basic' || logsIn(this.auth)) && this.auth?.username) return this.auth.username;
    const own = this.pool.lookup(['username', 'login', 'email'], { identity: 'primary', owned: true })[0];
    return own === undefined ? undefined : String(own.value);
  }

  // ---- CheckContext: requests with real values --------------------------------------------

  /** Values a create or update writes are new and recognisable; authentication bodies keep theirs. */
  private writesUniqueBody(op: Operation): boolean {
    return !!op.body && /json|form/i.test(op.body.contentType) && ['POST', 'PUT', 'PATCH'].includes(op.method) && !isAuthOperation(op);
  }

  request(op: Operation, o: Overrides = {}, identity: Identity = 'primary'): RequestSpec {
    const real = this.pool.pathValues(op, identity);
    // A DELETE with no resource of the scan's to remove gets an id nothing has (an invented 1 is often someone's real first record).
    if (op.method === 'DELETE')
      for (const p of op.params)
        if (p.in === 'path' && real[p.name] === undefined) real[p.name] = /integer|number/.test(String(p.schema?.type)) ? '987654321' : `${this.marker}-none`;
    const path: Record<string, string> = { ...real, ...o.path };
    // A resource whose identifier an update moved is addressed by its current one (a stale slug answers 404).
    if (this.moves.size) for (const [name, v] of Object.entries(path)) path[name] = this.moves.current(op, name, v);
    const overrides: Overrides = { ...o, path };
    // Required filters get a value the target answered (optional ones are left out: synth.ts).
    const filters = op.params.some((p) => p.in === 'query' && p.required) ? this.pool.queryValues(op, identity) : {};
    if (Object.keys(filters).length) overrides.query = { ...filters, ...o.query };
    // A write to a whole collection is limited to a record the scan created, where a filter can say so.
    const [bulk] = bulkWrite(this, op) ? bulkFilters(op, this.createdList, identity) : [];
    if (bulk) overrides.query = { [bulk[0]]: bulk[1], ...overrides.query };
    if (o.body === undefined && o.rawBody === undefined && this.writesUniqueBody(op)) {
      overrides.body = uniqueBody(sampleBody(op, o.requiredOnly), op.body!.schema, this.marker, ++this.uniqueCounter);
      // The user's own account keeps its login attributes: a plain update of it leaves them out.
      if (
        identity !== 'none' &&
        overrides.body &&
        typeof overrides.body === 'object' &&
        !Array.isArray(overrides.body) &&
        this.ownAccount(op, { ...real, ...o.path }, identity)
      ) {
        overrides.body = withoutLoginAttributes(overrides.body as Record<string, unknown>);
      }
    }
    return { ...buildRequest(op, overrides), identity, op };
  }

  /** Each identity the user gave: verified, reached, lost, logged in again (identities.ts). */
  readonly identities = new IdentityWatch((identity, op) => this.sendAs({ ...this.request(op, undefined, identity), identity }), {
    logsIn: (identity) => this.logsIn(identity),
    relogin: (identity) => this.relogin(identity),
  });

  /** login.operation of an identity: the spec's operation (operationId or "METHOD /path") as the login's endpoint. */
  private loginEndpoint(operation: string): LoginEndpoint | undefined {
    const key = operation.trim().replace(/^([A-Za-z]+)\s+/, (_m, m: string) => `${m.toUpperCase()} `);
    const op = this.model.operations.find((o) => o.operationId === operation || o.key === key);
    if (!op) return undefined;
    const fields = loginFields(op);
    // An enveloped login's fields as JSON pointers (`/user/email`): login.ts nests them.
    const named = (field: string) => (fields.envelope ? `/${pointerToken(fields.envelope)}/${field}` : field);
    return {
      method: op.method,
      url: this.url(buildRequest(op).path),
      format: /x-www-form-urlencoded/i.test(op.body?.contentType ?? '') ? 'form' : 'json',
      ...(fields.username ? { usernameField: named(fields.username) } : {}),
      ...(fields.password ? { passwordField: named(fields.password) } : {}),
    };
  }

  /**
   * Logs an identity that logs in (auth.type login, the OAuth2 password grant) in, before anything
   * relies on it: undefined when its login yielded a credential, else why not (the identity is then
   * not used, with that reason).
   */
  async logIn(identity: Identity): Promise<string | undefined> {
    const a = this.authFor(identity);
    if (!logsIn(a)) return undefined;
    try {
      await this.credentials.headers(a);
      return undefined;
    } catch (err) {
      if (!(err instanceof LoginFailure)) throw err;
      this.identities.loginFailed(identity, err.reason, true);
      return err.reason;
    }
  }

  /** Logs an identity in again now (the target refused its credential): undefined when that worked, else why not. */
  async relogin(identity: Identity): Promise<string | undefined> {
    const a = this.authFor(identity);
    if (!a || !logsIn(a)) return 'no login known';
    try {
      await this.credentials.relogin(a);
      return undefined;
    } catch (err) {
      if (!(err instanceof LoginFailure)) throw err;
      return err.reason;
    }
  }

  /**
   * Before the clean-up: an identity that logs in and was lost, or whose credential is refused on its
   * check operation, logs in again so that what it created can be deleted with it.
   */
  async readyForCleanUp(identity: Identity): Promise<void> {
    const a = this.authFor(identity);
    const s = identity === 'none' ? undefined : this.identities.states.get(identity);
    if (!logsIn(a) || !s?.checkOp) return;
    const check = () => this.sendAs({ ...this.request(s.checkOp!, undefined, identity), identity });
    const ok = (r: TargetResponse) => r.status >= 200 && r.status < 300;
    if (!s.lost && ok(await check())) return;
    if ((await this.relogin(identity)) !== undefined) return;
    if (ok(await check())) this.identities.revived(identity);
  }

  /** Logins and token refreshes an identity made (identities that log in). */
  loginCounts(identity: Identity): { logins: number; refreshes: number } | undefined {
    const a = this.authFor(identity);
    return logsIn(a) ? this.credentials.counts(a!) : undefined;
  }

  /** True when the identity obtains its credential by logging in. */
  logsIn(identity: Identity): boolean {
    return logsIn(this.authFor(identity));
  }

  /**
   * True when a write addresses the sending identity's own account: a self path (`PATCH /users/me`),
   * or path values that are its own (its token's claims, its profile).
   */
  private ownAccount(op: Operation, path: Record<string, string>, identity: Identity): boolean {
    if (identity === 'none' || ['GET', 'HEAD', 'OPTIONS'].includes(op.method)) return false;
    if (isSelfWrite(op)) return true;
    const params = op.params.filter((p) => p.in === 'path');
    if (!params.length || !/(user|account|member|profile|customer|people|person)/i.test(op.path)) return false;
    const selfRead = this.model.operations.find(isSelfRead)?.key;
    return params.every((p) => {
      const v = path[p.name];
      return (
        v !== undefined &&
        this.pool
          .lookup(keysForParam(op, p.name), { identity, owned: true })
          .some((h) => h.identity === identity && String(h.value) === v && (h.from === 'token' || h.from === selfRead))
      );
    });
  }

  /** Why a request must not be sent (a write to a whole collection without a filter; its identity is lost; it would change the login of the user's own account), if so. */
  private withholdReason(req: RequestSpec, identity: Identity): NotRunReason | undefined {
    const op = req.op ?? this.pathOperation(req);
    if (op && bulkWrite(this, op) && !filteredToOwnRecord(req.query, bulkFilters(op, this.createdList, identity))) return BULK_WRITE_REASON;
    if (identity === 'none') return undefined;
    const lost = this.identities.lost(identity);
    if (lost && !Object.keys(req.headers).some((h) => h.toLowerCase() === 'authorization')) return lostReason(identity, lost);
    if (!op || req.scanAccount || !this.ownAccount(op, this.concretePath(op, req.path), identity)) return undefined;
    if (op.method === 'DELETE') return OWN_ACCOUNT_REASON;
    const fields = bodyFields(req);
    if (fields && setsLoginAttribute(fields)) return OWN_ACCOUNT_REASON;
    // A body sent in chunks (a size probe): the property names in its head.
    if (req.body !== undefined && typeof req.body !== 'string') {
      const head = (Array.isArray(req.body) ? (req.body[0] ?? Buffer.alloc(0)) : req.body).subarray(0, 8192).toString();
      const keys = [...head.matchAll(/"([^"\\]{1,64})"\s*:|(?:^|&)([^=&]{1,64})=/g)].map((m) => m[1] ?? safeDecode(m[2]!));
      if (keys.some(isLoginAttribute)) return OWN_ACCOUNT_REASON;
    }
    return undefined;
  }

  /**
   * A write sent outside any operation (the http-methods probe of an undeclared PUT, PATCH or DELETE)
   * judged as the documented path's operation with that method: the user's own account is no less
   * theirs because the spec does not declare the method.
   */
  private pathOperation(req: RequestSpec): Operation | undefined {
    if (['GET', 'HEAD', 'OPTIONS', 'TRACE'].includes(req.method)) return undefined;
    const path = req.path.split('?')[0];
    const op = this.model.operations.find((o) => (o.path.includes('{') ? Object.keys(this.concretePath(o, path)).length > 0 : o.path === path));
    return op ? { ...op, method: req.method } : undefined;
  }

  /** The path parameter values of a concrete path built from the operation's template (none when it does not match). */
  private concretePath(op: Operation, path: string): Record<string, string> {
    return pathValuesOf(op.path, path) ?? {};
  }

  invented(op: Operation, identity: Identity = 'primary'): boolean {
    const real = this.pool.pathValues(op, identity);
    return op.params.some((p) => p.in === 'path' && real[p.name] === undefined);
  }

  values(param: string, opts: { identity?: Identity; owned?: boolean; op?: Operation } = {}): HarvestedValue[] {
    const keys = opts.op ? keysForParam(opts.op, param) : [param];
    return this.pool.lookup(keys, opts);
  }

  remember(value: HarvestedValue): void {
    this.pool.add(value.source, value);
    if (typeof value.value === 'string' && JWT.test(value.value)) this.noteJwt(value.value, value.identity, value.from);
  }

  created(identity?: Identity): CreatedResource[] {
    return this.createdList.filter((r) => !identity || r.identity === identity);
  }

  /** Every resource the scan created, for the final clean-up. */
  get createdResources(): CreatedResource[] {
    return this.createdList;
  }

  jwts(): { token: string; identity: Identity; source: string }[] {
    return [...this.jwtList];
  }

  private noteJwt(token: string, identity: Identity, source: string): void {
    if (this.jwtList.some((j) => j.token === token)) return;
    // Tokens the target hands out are secrets from now on.
    this.redactor.add(token);
    this.jwtList.push({ token, identity, source });
  }

  json(res: TargetResponse): unknown {
    let c = this.jsonCache.get(res);
    if (!c) {
      let v: unknown;
      try {
        v = res.body && /^\s*[[{"]/.test(res.body) ? JSON.parse(res.body) : undefined;
      } catch {
        v = undefined;
      }
      this.jsonCache.set(res, (c = { v }));
    }
    return c.v;
  }

  baseline(op: Operation, identity: Identity = 'primary'): Promise<TargetResponse> {
    return this.baselineNoted(op, identity, undefined);
  }

  private baselineNoted(op: Operation, identity: Identity = 'primary', log: AttemptLog | undefined): Promise<TargetResponse> {
    let perOp = this.baselines.get(op);
    if (!perOp) this.baselines.set(op, (perOp = new Map()));
    let pending = perOp.get(identity);
    if (!pending) {
      pending = this.sendNoted(this.request(op, undefined, identity), log).then((res) => {
        this.harvest(op, identity, res);
        return res;
      });
      perOp.set(identity, pending);
    }
    return pending.then((res) => {
      this.noteAttempt(log, op, res, false);
      return res;
    });
  }

  /** Identity claims of the JWTs the identities carry (in any header and scheme): each identity's own username, id, email. */
  async harvestIdentityClaims(): Promise<void> {
    for (const identity of ['primary', 'secondary'] as const) {
      if (identity === 'secondary' && !this.hasSecondary) continue;
      // Any header, any scheme: `Bearer <jwt>`, `Token <jwt>`, `JWT <jwt>`, a custom header holding the bare token.
      const token = Object.values(await this.authHeaders(identity))
        .map((v) => v.trim().split(/\s+/).at(-1) ?? '')
        .find((v) => JWT.test(v));
      if (!token) continue;
      this.noteJwt(token, identity, 'auth');
      let claims: Record<string, unknown>;
      try {
        claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());
      } catch {
        continue;
      }
      for (const claim of IDENTITY_CLAIMS) {
        const v = claims?.[claim];
        if (typeof v !== 'string' && typeof v !== 'number') continue;
        const base = { value: v, from: 'token', identity, owned: true };
        this.pool.add(claim, { ...base, source: claim });
        if (claim === 'sub' || claim === 'id' || claim === 'uid') {
          if (typeof v === 'number' || /^\d+$/.test(v)) this.pool.add('userid', { ...base, source: claim });
          else if (/@/.test(v)) this.pool.add('email', { ...base, source: claim });
          else this.pool.add('username', { ...base, source: claim });
        }
        if (claim === 'user_id' || claim === 'userId') this.pool.add('userid', { ...base, source: claim });
      }
    }
  }

  /** Files the real values of a response: JSON properties, the Location header, OpenAPI links, JWTs. */
  harvest(op: Operation, identity: Identity, res: TargetResponse, owned = isSelfRead(op)): void {
    if (res.status < 200 || res.status >= 300) return;
    const body = this.json(res);
    if (body !== undefined) {
      this.pool.harvestJson(body, op, identity, owned);
      this.harvestJwts(body, identity, op.key);
    }
    const location = res.headers['location'];
    if (location) this.harvestLocation(location, identity, op, owned);
    for (const link of op.links) {
      if (link.status !== String(res.status) && !(link.status === '2XX' || link.status === 'default')) continue;
      const target = this.model.operations.find(
        (o) => (link.operationId && o.operationId === link.operationId) || (link.operationKey && o.key === link.operationKey),
      );
      for (const [qualified, expr] of Object.entries(link.parameters)) {
        // A link may qualify the parameter with its location ("path.invoice_id").
        const param = qualified.replace(/^(path|query|header|cookie)\./, '');
        const v = this.evaluateLink(expr, res, body);
        if (v === undefined) continue;
        const hv = { value: v, source: param, from: op.key, identity, owned };
        for (const k of target ? keysForParam(target, param) : [param]) this.pool.add(k, hv);
      }
    }
  }

  private harvestJwts(body: unknown, identity: Identity, from: string, depth = 0): void {
    if (depth > 3 || !body || typeof body !== 'object') return;
    for (const v of Object.values(body as Record<string, unknown>)) {
      if (typeof v === 'string' && JWT.test(v)) this.noteJwt(v, identity, from);
      else if (v && typeof v === 'object') this.harvestJwts(v, identity, from, depth + 1);
    }
  }

  private evaluateLink(expr: string, res: TargetResponse, body: unknown): string | number | undefined {
    const b = /^\$response\.body#(\/.*)?$/.exec(expr);
    if (b) {
      let node: unknown = body;
      for (const part of (b[1] ?? '').split('/').slice(1)) {
        const key = part.replace(/~1/g, '/').replace(/~0/g, '~');
        node = node && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined;
      }
      return typeof node === 'string' || typeof node === 'number' ? node : undefined;
    }
    const h = /^\$response\.header\.(.+)$/.exec(expr);
    if (h) return res.headers[h[1].toLowerCase()];
    return undefined;
  }

  /** `Location: /api/orders/42` filled into the operation whose path template matches it. */
  private harvestLocation(location: string, identity: Identity, from: Operation, owned: boolean): void {
    let path: string;
    try {
      path = new URL(location, this.baseUrl + '/').pathname;
    } catch {
      return;
    }
    const base = new URL(this.baseUrl + '/').pathname.replace(/\/+$/, '');
    if (base && path.startsWith(base)) path = path.slice(base.length);
    for (const op of this.model.operations) {
      if (op.method !== 'GET' || !op.path.includes('{')) continue;
      const names: string[] = [];
      const re = new RegExp(
        `^${op.path
          .replace(/\/+$/, '')
          .replace(/[.*+?^$()|[\]\\]/g, '\\$&')
          .replace(/\\?\{([^}]+)\\?\}/g, (_m, n: string) => (names.push(n), '([^/]+)'))}/?$`,
      );
      const m = re.exec(path);
      if (!m) continue;
      names.forEach((n, i) => {
        const hv = { value: decodeURIComponent(m[i + 1]), source: n, from: from.key, identity, owned };
        for (const k of keysForParam(op, n)) this.pool.add(k, hv);
      });
    }
  }

  /** A 2xx answer to a create: the scan owns what it created (harvested, tracked for clean-up). */
  private noteCreated(req: RequestSpec, res: TargetResponse): void {
    const op = req.op!;
    const identity = req.identity ?? 'primary';
    const body = this.json(res);
    const resource = resourceOf(op.path);
    const values: Record<string, string | number> = {};
    const collect = (o: unknown) => {
      if (!o || typeof o !== 'object' || Array.isArray(o)) return;
      for (const [k, v] of Object.entries(o as Record<string, unknown>)) {
        if (typeof v !== 'string' && typeof v !== 'number') continue;
        values[normKey(k)] = v;
        if (resource) values[`${resource}${normKey(k)}`] = v;
      }
    };
    let sent: unknown;
    try {
      sent = typeof req.body === 'string' && /json/i.test(req.headers['content-type'] ?? '') ? JSON.parse(req.body) : undefined;
    } catch {
      sent = undefined;
    }
    // What the answer contradicts (a read-only id the target replaced) is not the resource's.
    const agreed = agreedWith(sent, body);
    // Enveloped bodies (`{"article": {...}}`, JSON:API `data.attributes`): the resource's own values.
    collect(unwrapEnvelope(agreed));
    collect(unwrapEnvelope(body));
    const id = values.id ?? values._id ?? values.uuid ?? (resource ? values[`${resource}id`] : undefined);
    // A nested child (`/articles/{slug}/comments`) is recorded with the parent it was created under.
    const parent = this.concretePath(op, req.path);
    this.createdList.push({
      op,
      identity,
      id,
      path: res.headers['location'],
      body: sent,
      values,
      ...(Object.keys(parent).length ? { parent } : {}),
      deleted: false,
    });
    // What the scan created is its own, sent body included (a title it chose addresses the resource too).
    if (agreed && typeof agreed === 'object') this.pool.harvestJson(agreed, op, identity, true);
    this.harvest(op, identity, res, true);
  }

  /**
   * A 2xx update whose answer (or `Location`) shows the resource under a new identifier: the scan
   * follows it (requests map the old value to the new one, the pool files the new one as the old one was).
   */
  private async noteMoved(op: Operation, req: RequestSpec, res: TargetResponse, log: AttemptLog | undefined): Promise<void> {
    if (/^https?:/i.test(req.path)) return;
    const basePath = new URL(`${this.baseUrl}/`).pathname.replace(/\/+$/, '');
    const body = this.json(res);
    const location = res.headers['location'];
    const move =
      movedIdentifier(op, req.path, body, location, basePath) ??
      (identifierShown(op, body, location, basePath) ? undefined : await this.rereadMoved(op, req, log));
    if (!move) return;
    this.moves.note(move);
    this.pool.rename(keysForParam(op, move.param), move.from, move.to);
  }

  /** Updates whose resource was read again and had stayed where it was, per operation. */
  private readonly stayed = new Map<string, number>();

  /**
   * An update answered without the resource's identifier (a 204): the resource is read again under
   * the identifier the update was sent to. A 404 there means it moved, and its collection's list
   * says where. An operation whose resources stayed twice is not read again.
   */
  private async rereadMoved(op: Operation, req: RequestSpec, log: AttemptLog | undefined): Promise<Move | undefined> {
    if ((this.stayed.get(op.key) ?? 0) >= 2) return undefined;
    const trim = (p: string) => p.replace(/\/+$/, '');
    const collection = trim(op.path.replace(/\/\{[^}]+\}\/?$/, ''));
    const read = this.model.operations.find((o) => o.method === 'GET' && o.path === op.path);
    const list = this.model.operations.find((o) => o.method === 'GET' && trim(o.path) === collection);
    if (!read || !list || collection === trim(op.path)) return undefined;
    const as = { query: [], headers: {}, identity: req.identity, ...(req.scanAccount ? { scanAccount: true } : {}) };
    const again = await this.sendNoted({ ...as, method: 'GET', path: req.path, op: read }, log);
    if (again.status !== 404 && again.status !== 410) {
      if (again.status >= 200 && again.status < 300) this.stayed.set(op.key, (this.stayed.get(op.key) ?? 0) + 1);
      return undefined;
    }
    const listPath = trim(req.path.split('?')[0]).replace(/\/[^/]+$/, '') + (list.path.endsWith('/') ? '/' : '');
    const listed = await this.sendNoted({ ...as, method: 'GET', path: listPath, op: list }, log);
    if (listed.status < 200 || listed.status >= 300) return undefined;
    let sent: unknown;
    try {
      sent = typeof req.body === 'string' ? JSON.parse(req.body) : undefined;
    } catch {
      sent = undefined;
    }
    return findMoved(op, req.path, sent, this.json(listed));
  }

  private base?: { model: ApiModel; url: string; canonical: boolean };

  /** True when the base URL is exactly what URL parsing would print (so paths can be appended as text). */
  private baseIsCanonical(): boolean {
    if (this.base?.model !== this.model) void this.baseUrl;
    return this.base!.canonical;
  }

  /** Base URL of the API: target origin + target path + server base path (unless the target already includes it). */
  get baseUrl(): string {
    if (this.base?.model === this.model) return this.base.url;
    const t = new URL(this.targetUrl);
    let p = t.pathname.replace(/\/+$/, '');
    const sp = this.model.serverPath.replace(/\/+$/, '');
    if (sp && !p.endsWith(sp)) p += sp;
    const url = t.origin + p;
    let canonical = false;
    try {
      canonical = new URL(`${url}/x`).href === `${url}/x`;
    } catch {
      canonical = false;
    }
    this.base = { model: this.model, url, canonical };
    return url;
  }

  url(path: string, query: [string, string][] = []): string {
    const rel = !/^https?:\/\//i.test(path);
    const full = rel ? this.baseUrl + (path.startsWith('/') ? path : `/${path}`) : path;
    // Fast path: a relative path made only of characters URL parsing keeps as they are, and no dot
    // segments, needs no parse (same href as new URL would give).
    if (rel && SAFE_PATH.test(path) && !DOT_SEGMENT.test(path) && this.baseIsCanonical()) {
      return query.length === 0 ? full : `${full}?${new URLSearchParams(query).toString()}`;
    }
    const u = new URL(full);
    if (query.length === 0) return u.href;
    // Same serialisation as searchParams.append, without re-parsing: only when there is no query yet.
    if (u.search === '' && !u.href.endsWith('?')) return `${u.href}?${new URLSearchParams(query).toString()}`;
    for (const [k, v] of query) u.searchParams.append(k, v);
    return u.href;
  }

  get hasSecondary(): boolean {
    return !!this.auth?.secondary && this.auth.secondary.type !== 'none';
  }

  get hasAuth(): boolean {
    return !!this.auth && this.auth.type !== 'none';
  }

  private authFor(identity: Identity): TargetAuth | undefined {
    if (identity === 'none') return undefined;
    return identity === 'secondary' ? this.auth?.secondary : this.auth;
  }

  /**
   * Credential headers for an identity (engines/credentials.ts); `stale` names an OAuth2 token the
   * target just refused, so a fresh one is fetched.
   */
  async authHeaders(identity: Identity = 'primary', stale?: string): Promise<Record<string, string>> {
    try {
      return await this.credentials.headers(this.authFor(identity), stale);
    } catch (err) {
      // An identity whose login yields nothing has no credential (it is lost, with the reason).
      if (!(err instanceof LoginFailure)) throw err;
      this.identities.loginFailed(identity, err.reason, !this.identities.state(identity).verified);
      return {};
    }
  }

  /**
   * Credentials for fetching the spec: the first identity's, except one that logs in through an
   * operation of the spec not loaded yet (it logs in once the spec is there).
   */
  specHeaders(): Promise<Record<string, string>> {
    if (this.auth?.type === 'login' && this.auth.login?.operation !== undefined && this.model.operations.length === 0) return Promise.resolve({});
    return this.authHeaders('primary');
  }

  /**
   * Sends a request. One built by `request(op)` for an operation that is public by design goes
   * without credentials; its answer counts in the operation's coverage, and a 2xx to a create is
   * tracked as a resource the scan owns.
   */
  send(req: RequestSpec): Promise<TargetResponse> {
    return this.sendNoted(req, undefined);
  }

  /** `send`, the answers noted into a check run's log (see `track`). */
  private async sendNoted(req: RequestSpec, log: AttemptLog | undefined): Promise<TargetResponse> {
    const identity: Identity = req.op?.publicByDesign ? 'none' : (req.identity ?? 'primary');
    const op = req.op;
    const reason = this.ceiling?.reached() ? this.ceiling.reason : this.withholdReason(req, identity);
    if (reason) {
      const res = withheld(
        { method: req.method, url: this.url(req.path, req.query), headers: req.headers, body: typeof req.body === 'string' ? req.body : undefined },
        reason,
      );
      this.noteAttempt(log, op, res, true);
      return res;
    }
    const res = await this.sendAs(req.op?.publicByDesign ? { ...req, identity: 'none' } : req);
    this.noteAttempt(log, op, res, true);
    if (!Object.keys(req.headers).some((h) => h.toLowerCase() === 'authorization')) this.identities.observe(identity, op, res);
    if (op) {
      this.coverage.response(op, req.op?.publicByDesign ? 'none' : (req.identity ?? 'primary'), res.status);
      if (res.status >= 200 && res.status < 300 && phaseOf(op) === 'create' && req.method === op.method && !isAuthOperation(op)) this.noteCreated(req, res);
      if (res.status >= 200 && res.status < 300 && (req.method === 'PUT' || req.method === 'PATCH') && req.method === op.method)
        await this.noteMoved(op, req, res, log);
    }
    return res;
  }

  /**
   * Sends with the identity's credentials. On 401, an OAuth2 token is refreshed once and the request
   * retried; an identity of type login logs in again and retries where the operation answered it
   * before (its session expired or was ended). A login that yields nothing: not sent, the identity lost.
   */
  private async sendAs(req: RequestSpec): Promise<TargetResponse> {
    const identity = req.identity ?? 'primary';
    let explicitAuth = false;
    for (const h in req.headers) if (h.length === 13 && h.toLowerCase() === 'authorization') explicitAuth = true;
    const a = explicitAuth ? undefined : this.authFor(identity);
    // Static credentials without an await (no extra microtask per request); OAuth2 and logins through their caches.
    const dynamic = a?.type === 'oauth2' || a?.type === 'login';
    // Without credentials, a write to a target with CSRF protection carries a visitor's session and token (not a credential).
    const visitor = identity === 'none' && this.auth?.type === 'login' && this.auth.login?.csrf_url !== undefined && !SAFE_METHODS.has(req.method);
    const creds = visitor
      ? await this.credentials.anonymousHeaders(this.auth)
      : !a
        ? {}
        : dynamic
          ? await this.dynamicHeaders(identity, a)
          : this.credentials.staticHeaders(a);
    if (!creds) return this.lostAnswer(req, identity);
    const generation = a?.type === 'login' ? this.credentials.generation(a) : undefined;
    let res = await this.sendWith(req, creds);
    if (a?.type === 'login') this.credentials.absorb(a, res.headers['set-cookie']);
    else if (visitor) this.credentials.absorbAnonymous(res.headers['set-cookie']);
    const retry = res.status === 401 && dynamic && (a.type === 'oauth2' || (!!req.op && !!this.identities.states.get(identity)?.reached.has(req.op.key)));
    if (retry) {
      // Refresh once and retry. Where even a fresh token gets 401 (a login answering a wrong
      // password, say), the 401 is not about the token: no more refreshes for that operation.
      const where = `${req.method} ${new URL(res.request.url).pathname}`;
      if (this.noRefresh.has(where)) return res;
      const fresh = await this.dynamicHeaders(identity, a, a.type === 'oauth2' ? creds.authorization?.slice(7) : generation);
      if (!fresh) return this.lostAnswer(req, identity);
      res = await this.sendWith(req, fresh);
      if (a.type === 'login') this.credentials.absorb(a, res.headers['set-cookie']);
      if (res.status === 401) this.noRefresh.add(where);
    }
    return res;
  }

  /** Headers of an OAuth2 or login identity; undefined when its login failed (it is lost, with the reason). */
  private async dynamicHeaders(identity: Identity, a: TargetAuth, stale?: string): Promise<Record<string, string> | undefined> {
    try {
      return await this.credentials.headers(a, stale);
    } catch (err) {
      if (!(err instanceof LoginFailure)) throw err;
      this.identities.loginFailed(identity, err.reason, !this.identities.state(identity).verified);
      return undefined;
    }
  }

  /** The answer to a request not sent because its identity has no credential any more. */
  private lostAnswer(req: RequestSpec, identity: Identity): TargetResponse {
    const lost = this.identities.lost(identity);
    const reason: NotRunReason = lost ? lostReason(identity, lost) : { code: 'identity_lost', text: 'the identity has no credential' };
    return withheld(
      { method: req.method, url: this.url(req.path, req.query), headers: req.headers, body: typeof req.body === 'string' ? req.body : undefined },
      reason,
    );
  }

  /** One attempt with the given credential headers (a method, not a per-call closure: this is the hot path). */
  private sendWith(req: RequestSpec, creds: Record<string, string>): Promise<TargetResponse> {
    return this.client.send({
      method: req.method,
      url: this.url(req.path, req.query),
      headers: { ...creds, ...req.headers },
      body: req.body,
      followRedirects: req.followRedirects,
      // A request in flight when the scan's ceiling comes is cut there.
      timeoutMs: this.ceiling ? Math.min(req.timeoutMs ?? Number.POSITIVE_INFINITY, this.ceiling.remainingMs()) : req.timeoutMs,
    });
  }

  /**
   * Redacts the scan's credentials in every encoding (domain/redaction.ts), then masks other
   * credential-looking values: Bearer/Basic values and password/secret/token fields.
   */
  mask(text: string): string {
    return this.redactor
      .redact(text)
      .replace(/\b(Bearer|Basic)\s+([A-Za-z0-9._~+/=-]{6,})/g, (_m, k: string, v: string) => `${k} ${maskSecret(v)}`)
      .replace(
        /("?(?:password|passwd|secret|token|api_key|apikey|access_token|client_secret)"?\s*[:=]\s*"?)([^"&\s,}[][^"&\s,}]{2,})/gi,
        (_m, k: string, v: string) => `${k}${maskSecret(v)}`,
      );
  }

  /**
   * A response body as evidence may quote it: the scan's credentials redacted. Checks quote from
   * this, never from the raw body: a cut (slice) or a regex match of the raw body could keep part
   * of a credential that no longer matches any of its whole forms.
   */
  shownBody(res: TargetResponse): string {
    let shown = this.shownBodies.get(res);
    if (shown === undefined) this.shownBodies.set(res, (shown = this.redactor.redact(res.body)));
    return shown;
  }

  /** The first `max` characters of a response body, for evidence (see shownBody). */
  excerpt(res: TargetResponse, max: number): string {
    return this.shownBody(res).slice(0, max);
  }

  /** Evidence: the request line and masked headers, then the proving part of the response. */
  evidence(res: TargetResponse, proof: string): string {
    const r = res.request;
    const headers = Object.entries(r.headers)
      .map(([k, v]) => `${k}: ${SECRET_HEADER.test(k) ? maskSecret(this.redactor.redact(v)) : v}`)
      .join('\n');
    const sent = r.body ? this.redactor.redact(r.body) : '';
    const body = sent ? `\n\n${sent.length > 500 ? `${sent.slice(0, 500)}...` : sent}` : '';
    const status = res.status ? `HTTP ${res.status}` : `no response (${res.error})`;
    return this.mask(`${r.method} ${r.url}\n${headers}${body}\n\n=> ${status}, ${Math.round(res.elapsedMs)} ms\n${proof}`);
  }
}
