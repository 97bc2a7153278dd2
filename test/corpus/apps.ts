/**
 * The corpus of real shapes (issue 26): open-source API applications nobody here wrote, each with
 * flaws injected one at a time by a code transform of a temporary copy (the unpatched app is each
 * flaw's fixed twin). A flaw removes one authorization or validation check; it is found when a
 * failed task of one of its `checks` names one of its `endpoints`. Sources, pinned commits and
 * licences: test/fixtures/real-apps/<app>/README.md (the npm apps: their start scripts there).
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TargetAuth } from '../../src/domain/scan.js';
import type { AppStart } from '../engines/security/real-apps.js';
import { jsonServerAuthSpec } from '../fixtures/real-apps/json-server-auth-spec.js';

/** Debian's interpreter, which has the apps' packages (.ci/run installs them); a python3 earlier on PATH may not. */
export const PYTHON = '/usr/bin/python3';
export const FIXTURES = fileURLToPath(new URL('../fixtures/real-apps/', import.meta.url));
const NODE_MODULES = fileURLToPath(new URL('../../node_modules/', import.meta.url));
const require = createRequire(import.meta.url);

/** Replaces `from` (which must occur exactly once) with `to` in `file` of the app's copy. */
export interface Edit {
  file: string;
  from: string;
  to: string;
}

export interface Flaw {
  id: string;
  /** The check the patch removes, in the app's own terms. */
  removes: string;
  /** Checks of the engine whose finding on one of `endpoints` is the flaw found. */
  checks: string[];
  endpoints: string[];
  edits: Edit[];
}

export interface ScanSetup {
  /** The app's own OpenAPI document, read by the scan; else `spec_text`, one written for an app that publishes none. */
  spec_url?: string;
  spec_text?: string;
  /** None for an app without authentication. */
  auth?: TargetAuth & { secondary?: TargetAuth };
}

export interface CorpusApp {
  name: string;
  framework: string;
  /** The app's own code or configuration (a folder under test/fixtures/real-apps/, an npm package's folder), copied into the temporary directory as ./app. */
  source: string;
  start: AppStart;
  ready: RegExp;
  /** Runs in the temporary directory after the copy and the edits (database, accounts made outside the API). */
  prepare?(dir: string): void;
  /** Runs once the app answers: accounts made through the API; returns what the scan is given. */
  setup(url: string): Promise<ScanSetup>;
  /**
   * High or critical findings that are true of the unpatched app itself, as "severity check endpoint" (each one
   * verified independently of the scan by the app's real-app test): on the twin they are not false positives.
   */
  trueFindings?: string[];
  flaws: Flaw[];
}

const ALICE = { name: 'alice', email: 'alice@example.com', password: 'alice-pw-1' };
const BOB = { name: 'bob', email: 'bob@example.com', password: 'bob-pw-2' };

/** Django REST framework's tutorial (Pastebin API): snippets owned by their author, readable by all, writable by the owner (IsOwnerOrReadOnly). */
const drfTutorial: CorpusApp = {
  name: 'drf-tutorial',
  framework: 'Django REST framework',
  source: `${FIXTURES}drf-tutorial`,
  start: { command: PYTHON, args: [`${FIXTURES}serve-wsgi.py`, 'app', 'tutorial.wsgi:application'] },
  ready: /listening on (\d+)/,
  prepare(dir) {
    // The tutorial's settings keep the SQLite database next to manage.py: in the copy.
    const env = { ...process.env, DATABASE_URL: undefined };
    const cwd = `${dir}/app`;
    execFileSync(PYTHON, ['manage.py', 'migrate', '-v0'], { cwd, env });
    const users = [ALICE, BOB].map((u) => `User.objects.create_user(${JSON.stringify(u.name)}, ${JSON.stringify(u.email)}, ${JSON.stringify(u.password)})`);
    execFileSync(PYTHON, ['manage.py', 'shell', '-c', ['from django.contrib.auth.models import User', ...users].join('\n')], { cwd, env });
  },
  async setup(url) {
    return {
      spec_url: `${url}/schema/`,
      auth: { type: 'basic', username: ALICE.name, password: ALICE.password, secondary: { type: 'basic', username: BOB.name, password: BOB.password } },
    };
  },
  flaws: [
    {
      id: 'snippet-owner-check',
      removes: 'IsOwnerOrReadOnly on SnippetViewSet: any signed-in user may update or delete any snippet',
      checks: ['bola'],
      endpoints: ['PUT /snippets/{id}/', 'PATCH /snippets/{id}/', 'DELETE /snippets/{id}/'],
      edits: [
        {
          file: 'snippets/views.py',
          from: 'permission_classes = (\n        permissions.IsAuthenticatedOrReadOnly,\n        IsOwnerOrReadOnly, )',
          to: 'permission_classes = (\n        permissions.IsAuthenticatedOrReadOnly, )',
        },
      ],
    },
    {
      id: 'user-fields-allowlist',
      removes: "UserSerializer's field allow-list, replaced by a deny-list: the user endpoints return every column (password hash, is_superuser, email)",
      checks: ['data-exposure'],
      endpoints: ['GET /users/', 'GET /users/{id}/'],
      edits: [
        {
          file: 'snippets/serializers.py',
          from: "fields = ('url', 'id', 'username', 'snippets')",
          to: "exclude = ('groups', 'user_permissions')",
        },
      ],
    },
  ],
};

const ITEM_NOT_FOUND = '        raise HTTPException(status_code=404, detail="Item not found")\n';
const OWNER_CHECK =
  '    if not crud.user.is_superuser(current_user) and (item.owner_id != current_user.id):\n        raise HTTPException(status_code=400, detail="Not enough permissions")\n';
/** Removes the owner check that follows `docstring` in app/api/api_v1/endpoints/items.py. */
const withoutOwnerCheck = (docstring: string): Edit => ({
  file: 'app/api/api_v1/endpoints/items.py',
  from: `    ${docstring}\n    """\n    item = crud.item.get(db=db, id=id)\n    if not item:\n${ITEM_NOT_FOUND}${OWNER_CHECK}`,
  to: `    ${docstring}\n    """\n    item = crud.item.get(db=db, id=id)\n    if not item:\n${ITEM_NOT_FOUND}`,
});

/** The backend of tiangolo's full-stack-fastapi-postgresql: JWT login (OAuth2 password form), items owned by users, superuser-only user administration. */
const fastapiFullstack: CorpusApp = {
  name: 'fastapi-fullstack',
  framework: 'FastAPI',
  source: `${FIXTURES}fastapi-fullstack`,
  start: {
    command: PYTHON,
    args: ['app/serve.py'],
    env: {
      PROJECT_NAME: 'full-stack-fastapi',
      SERVER_NAME: 'localhost',
      SERVER_HOST: 'http://localhost',
      SENTRY_DSN: '',
      // Required by the template's settings; serve.py replaces the PostgreSQL URL built from them with SQLite.
      POSTGRES_SERVER: 'unused',
      POSTGRES_USER: 'unused',
      POSTGRES_PASSWORD: 'unused',
      POSTGRES_DB: 'unused',
      FIRST_SUPERUSER: 'admin@example.com',
      FIRST_SUPERUSER_PASSWORD: 'admin-pw-0',
      USERS_OPEN_REGISTRATION: 'true',
    },
  },
  ready: /listening on (\d+)/,
  async setup(url) {
    for (const u of [ALICE, BOB]) {
      const res = await fetch(`${url}/api/v1/users/open`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: u.email, password: u.password, full_name: u.name }),
      });
      if (res.status !== 200) throw new Error(`registering ${u.email}: ${res.status} ${await res.text()}`);
    }
    const identity = (u: typeof ALICE): TargetAuth => ({
      type: 'oauth2',
      oauth2_grant_type: 'password',
      oauth2_token_url: `${url}/api/v1/login/access-token`,
      username: u.email,
      password: u.password,
    });
    return { spec_url: `${url}/api/v1/openapi.json`, auth: { ...identity(ALICE), secondary: identity(BOB) } };
  },
  flaws: [
    {
      id: 'item-read-owner-check',
      removes: 'the owner check of GET /items/{id}: any user reads any item',
      checks: ['bola'],
      endpoints: ['GET /api/v1/items/{id}'],
      edits: [withoutOwnerCheck('Get item by ID.')],
    },
    {
      id: 'item-update-owner-check',
      removes: 'the owner check of PUT /items/{id}: any user updates any item',
      checks: ['bola'],
      endpoints: ['PUT /api/v1/items/{id}'],
      edits: [withoutOwnerCheck('Update an item.')],
    },
    {
      id: 'item-delete-owner-check',
      removes: 'the owner check of DELETE /items/{id}: any user deletes any item',
      checks: ['bola'],
      endpoints: ['DELETE /api/v1/items/{id}'],
      edits: [withoutOwnerCheck('Delete an item.')],
    },
    {
      id: 'user-read-role-check',
      removes: 'the superuser check of GET /users/{user_id}: any user reads any user',
      checks: ['bola', 'bfla'],
      endpoints: ['GET /api/v1/users/{user_id}'],
      edits: [
        {
          file: 'app/api/api_v1/endpoints/users.py',
          from: '    if user == current_user:\n        return user\n    if not crud.user.is_superuser(current_user):\n        raise HTTPException(\n            status_code=400, detail="The user doesn\'t have enough privileges"\n        )\n',
          to: '    if user == current_user:\n        return user\n',
        },
      ],
    },
    {
      id: 'users-list-role-check',
      removes: 'the superuser dependency of GET /users/: any user lists every user',
      checks: ['bfla', 'bola', 'data-exposure'],
      endpoints: ['GET /api/v1/users/'],
      edits: [
        {
          file: 'app/api/api_v1/endpoints/users.py',
          from: '    limit: int = 100,\n    current_user: models.User = Depends(deps.get_current_active_superuser),\n) -> Any:\n    """\n    Retrieve users.',
          to: '    limit: int = 100,\n    current_user: models.User = Depends(deps.get_current_active_user),\n) -> Any:\n    """\n    Retrieve users.',
        },
      ],
    },
    {
      id: 'users-me-allowlist',
      removes: "PUT /users/me's allow-list (password, full_name, email): the body is the whole UserUpdate, is_superuser included",
      checks: ['mass-assignment'],
      endpoints: ['PUT /api/v1/users/me'],
      edits: [
        {
          file: 'app/api/api_v1/endpoints/users.py',
          from: '    password: str = Body(None),\n    full_name: str = Body(None),\n    email: EmailStr = Body(None),\n    current_user: models.User = Depends(deps.get_current_active_user),\n) -> Any:\n    """\n    Update own user.\n    """\n    current_user_data = jsonable_encoder(current_user)\n    user_in = schemas.UserUpdate(**current_user_data)\n    if password is not None:\n        user_in.password = password\n    if full_name is not None:\n        user_in.full_name = full_name\n    if email is not None:\n        user_in.email = email\n',
          to: '    body: schemas.UserUpdate,\n    current_user: models.User = Depends(deps.get_current_active_user),\n) -> Any:\n    """\n    Update own user.\n    """\n    current_user_data = jsonable_encoder(current_user)\n    user_in = schemas.UserUpdate(**current_user_data)\n    for field, value in body.dict(exclude_unset=True).items():\n        setattr(user_in, field, value)\n',
        },
      ],
    },
  ],
};

async function post(url: string, body: unknown, token?: string): Promise<{ status: number; body: any }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

/** Loosens json-server-auth's guard of `resource` (routes.json) from `600` (private to the owner) to `guard`. */
const guard = (resource: string, to: number): Edit => ({ file: 'routes.json', from: `"${resource}": 600`, to: `"${resource}": ${to}` });

/**
 * json-server-auth 2.1.0 over json-server 0.17.4 (Express): JWT logins, users and notes private to their
 * owner by its guard rules (routes.json, test/fixtures/real-apps/json-server-auth/). The OpenAPI document
 * is ours: json-server publishes none. Each account registers through the app's own POST /register and
 * writes one note; the scan logs them in itself.
 */
export const jsonServerAuth: CorpusApp = {
  name: 'json-server-auth',
  framework: 'Express',
  source: `${FIXTURES}json-server-auth`,
  start: { script: 'test/fixtures/real-apps/json-server-auth.ts' },
  ready: /listening on (\d+)/,
  async setup(url) {
    for (const u of [ALICE, BOB]) {
      const reg = await post(`${url}/register`, { email: u.email, password: u.password });
      if (reg.status !== 201) throw new Error(`registering ${u.email}: ${reg.status} ${JSON.stringify(reg.body)}`);
      const note = await post(`${url}/notes`, { userId: reg.body.user.id, title: `${u.name}'s note`, body: `private to ${u.name}` }, reg.body.accessToken);
      if (note.status !== 201) throw new Error(`${u.name}'s note: ${note.status} ${JSON.stringify(note.body)}`);
    }
    const login = { operation: 'POST /login', username_field: 'email', token_pointer: '/accessToken' };
    const identity = (u: typeof ALICE): TargetAuth => ({ type: 'login', username: u.email, password: u.password, login });
    return { spec_text: JSON.stringify(jsonServerAuthSpec()), auth: { ...identity(ALICE), secondary: identity(BOB) } };
  },
  // test/engines/security/real-app-json-server-auth.test.ts shows each: the JWT secret is a constant of the package, the
  // owner's own record carries its bcrypt hash, PATCH /users/{id} stores any property (role), the list of notes shows everyone's.
  trueFindings: ['critical jwt GET /notes', 'high bola GET /notes', 'high data-exposure GET /users/{id}', 'high mass-assignment PATCH /users/{id}'],
  flaws: [
    {
      id: 'notes-read-guard',
      removes: "the owner guard of reads of notes (600 made 640): any signed-in user reads any note; writes stay the owner's",
      checks: ['bola'],
      endpoints: ['GET /notes/{id}'],
      edits: [guard('notes', 640)],
    },
    {
      id: 'notes-write-guard',
      removes: 'the owner guard of notes (600 made 660): any signed-in user reads, changes and deletes any note',
      checks: ['bola'],
      endpoints: ['PATCH /notes/{id}', 'DELETE /notes/{id}'],
      edits: [guard('notes', 660)],
    },
    {
      id: 'users-read-guard',
      removes: "the owner guard of reads of users (600 made 640): any signed-in user reads any user's record, its bcrypt hash included",
      checks: ['bola'],
      endpoints: ['GET /users/{id}'],
      edits: [guard('users', 640)],
    },
  ],
};

/**
 * @loopback/example-todo 6.0.0 (LoopBack 4's tutorial app, IBM): public todos (no authentication at all),
 * an in-memory datasource persisted to ./data/db.json (a copy of the package's seed: todos 1-4), and its
 * own OpenAPI document at /openapi.json. Its flaws are edits of the copy of the package's compiled code.
 */
export const loopbackTodo: CorpusApp = {
  name: 'loopback-todo',
  framework: 'LoopBack 4',
  source: dirname(require.resolve('@loopback/example-todo/package.json')),
  // The copy in the temporary directory finds its dependencies (@loopback/*) in this repository's node_modules.
  start: { script: 'test/fixtures/real-apps/loopback-todo.ts', env: { NODE_PATH: NODE_MODULES } },
  ready: /Server is running at (http:\/\/127\.0\.0\.1:\d+)/,
  prepare(dir) {
    mkdirSync(join(dir, 'data'));
    cpSync(join(dir, 'app/data/db.json'), join(dir, 'data/db.json'));
  },
  async setup(url) {
    return { spec_url: `${url}/openapi.json` };
  },
  flaws: [
    {
      id: 'todo-strict-mode',
      removes:
        "the Todo model's strict mode (LoopBack's default, `@model()` made `@model({settings: {strict: false}})`): undeclared properties of a todo are accepted and stored",
      checks: ['mass-assignment'],
      endpoints: ['POST /todos', 'PUT /todos/{id}', 'PATCH /todos/{id}', 'PATCH /todos'],
      edits: [{ file: 'dist/models/todo.model.js', from: '(0, repository_1.model)()', to: '(0, repository_1.model)({ settings: { strict: false } })' }],
    },
  ],
};

export const CORPUS: CorpusApp[] = [drfTutorial, fastapiFullstack, jsonServerAuth, loopbackTodo];
