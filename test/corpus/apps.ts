/**
 * The corpus of real shapes (issue 26): open-source API applications nobody here wrote, each with
 * flaws injected one at a time by a code transform of a temporary copy (the unpatched app is each
 * flaw's fixed twin). A flaw removes one authorization or validation check; it is found when a
 * failed task of one of its `checks` names one of its `endpoints`. Sources, pinned commits and
 * licences: test/fixtures/real-apps/<app>/README.md.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { TargetAuth } from '../../src/domain/scan.js';
import type { AppCommand } from '../engines/security/real-apps.js';

/** Debian's interpreter, which has the apps' packages (.ci/run installs them); a python3 earlier on PATH may not. */
export const PYTHON = '/usr/bin/python3';
export const FIXTURES = fileURLToPath(new URL('../fixtures/real-apps/', import.meta.url));

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
  spec_url: string;
  auth: TargetAuth & { secondary?: TargetAuth };
}

export interface CorpusApp {
  name: string;
  framework: string;
  /** Folder under test/fixtures/real-apps/ copied into the temporary directory (as ./app). */
  fixture: string;
  start: AppCommand;
  ready: RegExp;
  /** Runs in the temporary directory after the copy and the edits (database, accounts made outside the API). */
  prepare?(dir: string): void;
  /** Runs once the app answers: accounts made through the API; returns what the scan is given. */
  setup(url: string): Promise<ScanSetup>;
  flaws: Flaw[];
}

const ALICE = { name: 'alice', email: 'alice@example.com', password: 'alice-pw-1' };
const BOB = { name: 'bob', email: 'bob@example.com', password: 'bob-pw-2' };

/** Django REST framework's tutorial (Pastebin API): snippets owned by their author, readable by all, writable by the owner (IsOwnerOrReadOnly). */
const drfTutorial: CorpusApp = {
  name: 'drf-tutorial',
  framework: 'Django REST framework',
  fixture: 'drf-tutorial',
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
  fixture: 'fastapi-fullstack',
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

export const CORPUS: CorpusApp[] = [drfTutorial, fastapiFullstack];
