import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

/**
 * The deployment files (Dockerfile, compose.yaml, deploy/systemd) cannot be run here (no base
 * images, no systemd as PID 1), so they are read: each starts the command `npm start` runs, with
 * roles and variables the README documents, the distributed setup has PostgreSQL, Redis, two api
 * and two worker processes sharing one store, and everything the Dockerfile copies is in the
 * repository (tracked, not excluded by .dockerignore).
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

/** The README's configuration table: variable names, and the values of VIGIL_ROLE. */
function readmeConfiguration() {
  const readme = read('README.md');
  const section = readme.slice(readme.indexOf('## Configuration'));
  const rows = section.split('\n').filter((l) => /^\|\s*`[A-Z]/.test(l));
  const variables = new Map<string, string>();
  for (const row of rows) {
    const [names, , meaning] = row
      .split('|')
      .slice(1)
      .map((c) => c.trim());
    for (const [, name] of names!.matchAll(/`([A-Z][A-Z0-9_]+)`/g)) variables.set(name!, meaning ?? '');
  }
  const roles = [...(variables.get('VIGIL_ROLE') ?? '').matchAll(/`([a-z]+)`/g)].map((m) => m[1]!).filter((r) => r !== 'serve' && r !== 'vigil');
  return { variables, roles, readme };
}

/** `npm start`'s command, as the README's quick start runs it. */
function startCommand(): string[] {
  const pkg = JSON.parse(read('package.json'));
  return String(pkg.scripts.start).split(/\s+/);
}

interface Instruction {
  keyword: string;
  args: string;
  line: number;
}

/** Dockerfile instructions: continuation lines joined, comments and parser directives dropped. */
function parseDockerfile(text: string): Instruction[] {
  const out: Instruction[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i += 1) {
    const start = i;
    let line = lines[i]!;
    if (/^\s*(#|$)/.test(line)) continue;
    while (/\\\s*$/.test(line) && i + 1 < lines.length) {
      i += 1;
      if (/^\s*#/.test(lines[i]!)) continue;
      line = line.replace(/\\\s*$/, ' ') + lines[i]!.trim();
    }
    const m = /^\s*([A-Za-z]+)\s+([\s\S]*)$/.exec(line);
    if (m) out.push({ keyword: m[1]!.toUpperCase(), args: m[2]!.trim(), line: start + 1 });
  }
  return out;
}

/** Exec form (JSON array) or shell form split on spaces. */
function commandOf(args: string): string[] {
  return args.startsWith('[') ? (JSON.parse(args) as string[]) : args.split(/\s+/);
}

/** `KEY=value KEY2=value` (or the legacy `KEY value`) of ENV. */
function envOf(args: string): Record<string, string> {
  const pairs: Record<string, string> = {};
  if (!args.includes('=')) {
    const [k, ...v] = args.split(/\s+/);
    pairs[k!] = v.join(' ');
    return pairs;
  }
  for (const m of args.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("[^"]*"|\S*)/g)) pairs[m[1]!] = m[2]!.replace(/^"|"$/g, '');
  return pairs;
}

function stages(instructions: Instruction[]) {
  const result: { name: string; image: string; body: Instruction[] }[] = [];
  for (const ins of instructions) {
    if (ins.keyword === 'FROM') {
      const [image, , name] = ins.args.split(/\s+/);
      result.push({ image: image!, name: name ?? String(result.length), body: [] });
    } else result.at(-1)?.body.push(ins);
  }
  return result;
}

const tracked = new Set(execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' }).split('\n').filter(Boolean));
const isTracked = (path: string) => tracked.has(path) || [...tracked].some((t) => t.startsWith(`${path.replace(/\/$/, '')}/`));

/** .dockerignore patterns (the simple forms it uses: names, dir/, **\/name). */
function dockerIgnored(path: string): boolean {
  const patterns = read('.dockerignore')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const parts = path.replace(/\/$/, '').split('/');
  return patterns.some((p) => {
    const clean = p.replace(/\/$/, '');
    if (clean.startsWith('**/')) return parts.includes(clean.slice(3));
    if (clean.includes('*')) return new RegExp(`^${clean.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}$`).test(parts[0]!);
    return path === clean || path.startsWith(`${clean}/`);
  });
}

describe('Dockerfile', () => {
  const instructions = parseDockerfile(read('Dockerfile'));
  const all = stages(instructions);
  const runtime = all.at(-1)!;
  const { variables } = readmeConfiguration();

  it('is multi-stage: dependencies from the lockfile, then the build, in a build stage; Debian-based images', () => {
    expect(all.length).toBeGreaterThanOrEqual(2);
    for (const stage of all) expect(stage.image, stage.name).toMatch(/^node:20(\.\d+)*-bookworm(-slim)?$/);
    const build = all[0]!;
    const runs = build.body.filter((i) => i.keyword === 'RUN').map((i) => i.args);
    const ci = runs.findIndex((r) => /\bnpm ci\b/.test(r));
    const compile = runs.findIndex((r) => /\bnpm run build\b/.test(r));
    expect(ci, 'npm ci in the build stage').toBeGreaterThanOrEqual(0);
    expect(compile, 'npm run build after npm ci').toBeGreaterThan(ci);
    expect(
      runs.some((r) => /npm prune --omit=dev/.test(r)),
      'dev dependencies left out of the runtime',
    ).toBe(true);
    // The lockfile is copied before npm ci (a cached layer, and npm ci needs it).
    const lockCopy = build.body.findIndex((i) => i.keyword === 'COPY' && i.args.includes('package-lock.json'));
    expect(lockCopy).toBeGreaterThanOrEqual(0);
    expect(lockCopy).toBeLessThan(build.body.findIndex((i) => i.keyword === 'RUN' && /\bnpm ci\b/.test(i.args)));
  });

  it("runs as a non-root user with Debian's Chromium installed by apt in the runtime stage", () => {
    const user = runtime.body.filter((i) => i.keyword === 'USER').at(-1);
    expect(user, 'USER in the runtime stage').toBeDefined();
    expect(user!.args).not.toMatch(/^(root|0)(:|$)/);
    const created = runtime.body.find((i) => i.keyword === 'RUN' && new RegExp(`useradd\\b[^&]*\\b${user!.args}\\b`).test(i.args));
    expect(created, `the runtime stage creates user ${user!.args}`).toBeDefined();
    const apt = runtime.body.find((i) => i.keyword === 'RUN' && /apt-get install\b[^&]*\bchromium\b/.test(i.args));
    expect(apt, 'apt-get install chromium').toBeDefined();
    const env = Object.assign({}, ...runtime.body.filter((i) => i.keyword === 'ENV').map((i) => envOf(i.args)));
    expect(env.CHROMIUM_PATH).toBe('/usr/bin/chromium');
    // The data dir is the user's home (writable) and a volume.
    expect(runtime.body.find((i) => i.keyword === 'VOLUME')?.args).toContain(env.VIGIL_DATA_DIR);
    expect(created!.args).toContain(`--home-dir ${env.VIGIL_DATA_DIR}`);
  });

  it('starts what `npm start` starts, listens where EXPOSE says, and checks the health endpoint', () => {
    const cmd = runtime.body.filter((i) => i.keyword === 'CMD').at(-1)!;
    expect(commandOf(cmd.args)).toEqual(startCommand());
    expect(runtime.body.some((i) => i.keyword === 'ENTRYPOINT')).toBe(false);
    const env = Object.assign({}, ...runtime.body.filter((i) => i.keyword === 'ENV').map((i) => envOf(i.args)));
    expect(env.HOST).toBe('0.0.0.0');
    expect(runtime.body.find((i) => i.keyword === 'EXPOSE')?.args).toBe(env.PORT);
    const health = runtime.body.find((i) => i.keyword === 'HEALTHCHECK')!;
    expect(health.args).toContain('/api/v1/health');
    expect(health.args).toContain('process.env.PORT');
  });

  it('sets only variables the README documents', () => {
    const env = Object.assign({}, ...instructions.filter((i) => i.keyword === 'ENV').map((i) => envOf(i.args)));
    expect(Object.keys(env).length).toBeGreaterThan(0);
    for (const name of Object.keys(env)) expect(variables.has(name), `${name} in the README's configuration table`).toBe(true);
  });

  it('copies only files that are in the repository and not excluded from the build context', () => {
    const copies = instructions.filter((i) => (i.keyword === 'COPY' || i.keyword === 'ADD') && !/--from=/.test(i.args));
    expect(copies.length).toBeGreaterThan(0);
    for (const copy of copies) {
      const parts = commandOf(copy.args).filter((p) => !p.startsWith('--'));
      for (const source of parts.slice(0, -1)) {
        expect(existsSync(join(ROOT, source)), `${source} (Dockerfile line ${copy.line}) exists`).toBe(true);
        expect(isTracked(source), `${source} (Dockerfile line ${copy.line}) is tracked by git`).toBe(true);
        expect(dockerIgnored(source), `${source} (Dockerfile line ${copy.line}) is not in .dockerignore`).toBe(false);
      }
    }
    // Files the build stage uses from the sources it copied.
    for (const run of all[0]!.body.filter((i) => i.keyword === 'RUN')) {
      for (const [, file] of run.args.matchAll(/\bcp (src\/\S+)/g)) expect(isTracked(file!), file).toBe(true);
    }
    // What `npm run build` reads (files named in the build scripts: tsconfig.json, web/vite.config.ts...) is copied before it runs.
    const scripts = JSON.parse(read('package.json')).scripts as Record<string, string>;
    const buildScripts = Object.entries(scripts)
      .filter(([name]) => name === 'build' || name.startsWith('build:'))
      .map(([, s]) => s)
      .join(' ');
    const named = buildScripts.split(/\s+/).filter((t) => /[./]/.test(t) && !t.startsWith('-') && existsSync(join(ROOT, t)));
    expect(named.length).toBeGreaterThan(0);
    const build = all[0]!.body;
    const buildAt = build.findIndex((i) => i.keyword === 'RUN' && /\bnpm run build\b/.test(i.args));
    const copiedBefore = build
      .slice(0, buildAt)
      .filter((i) => i.keyword === 'COPY' && !/--from=/.test(i.args))
      .flatMap((i) =>
        commandOf(i.args)
          .filter((p) => !p.startsWith('--'))
          .slice(0, -1),
      );
    for (const file of named)
      expect(
        copiedBefore.some((src) => file === src || file.startsWith(`${src.replace(/\/$/, '')}/`)),
        `${file} (read by npm run build) copied before it`,
      ).toBe(true);
    // Every workspace's package.json is copied before npm ci (npm ci refuses a lockfile whose workspaces are missing).
    const pkg = JSON.parse(read('package.json'));
    for (const pattern of pkg.workspaces ?? []) {
      const dir = String(pattern).replace(/\/\*$/, '');
      const manifests = [...tracked].filter((t) => t.startsWith(`${dir}/`) && /^[^/]+\/[^/]+\/package\.json$/.test(t));
      for (const manifest of manifests)
        expect(
          copies.some((c) => c.args.includes(manifest)),
          `${manifest} copied`,
        ).toBe(true);
    }
  });
});

describe('compose.yaml (distributed)', () => {
  const compose = parse(read('compose.yaml'), { merge: true });
  const services = compose.services as Record<string, any>;
  const { variables, roles } = readmeConfiguration();
  const vigil = Object.entries(services).filter(([, s]) => s.build !== undefined);
  const roleOf = (s: any) => s.environment?.VIGIL_ROLE ?? (s.command?.includes('--role') ? s.command[s.command.indexOf('--role') + 1] : 'all');

  it('has PostgreSQL, Redis, two api and two worker processes built from the Dockerfile', () => {
    expect(Object.values(services).some((s) => /^postgres:/.test(s.image))).toBe(true);
    expect(Object.values(services).some((s) => /^redis:/.test(s.image))).toBe(true);
    expect(roles).toEqual(expect.arrayContaining(['all', 'api', 'worker']));
    const byRole = (role: string) => vigil.filter(([, s]) => roleOf(s) === role).map(([name]) => name);
    expect(byRole('api')).toHaveLength(2);
    expect(byRole('worker')).toHaveLength(2);
    for (const [name, s] of vigil) {
      expect(roles, `${name}'s role is one the README documents`).toContain(roleOf(s));
      expect(s.build === '.' || s.build?.context === '.', name).toBe(true);
    }
  });

  it("starts every Vigil process with `npm start`'s command and only documented variables", () => {
    for (const [name, s] of vigil) {
      expect(s.command ?? startCommand(), name).toEqual(startCommand());
      for (const variable of Object.keys(s.environment ?? {}))
        expect(variables.has(variable), `${name}: ${variable} in the README's configuration table`).toBe(true);
    }
  });

  it('points every process at the same PostgreSQL, Redis and encryption key', () => {
    const pg = Object.entries(services).find(([, s]) => /^postgres:/.test(s.image))![0];
    const redis = Object.entries(services).find(([, s]) => /^redis:/.test(s.image))![0];
    for (const key of ['DATABASE_URL', 'REDIS_URL', 'VIGIL_ENCRYPTION_KEY']) {
      const values = new Set(vigil.map(([, s]) => s.environment?.[key]));
      expect(values.size, key).toBe(1);
      expect([...values][0], key).toBeTruthy();
    }
    const [, first] = vigil[0]!;
    expect(new URL(first.environment.DATABASE_URL.replace(/\$\{[^}]*\}/g, 'x')).hostname).toBe(pg);
    expect(new URL(first.environment.REDIS_URL).hostname).toBe(redis);
    for (const [name, s] of vigil) {
      expect(Object.keys(s.depends_on ?? {}), name).toEqual(expect.arrayContaining([pg, redis]));
      expect(s.depends_on[pg].condition, name).toBe('service_healthy');
    }
  });

  it('publishes one address that reaches both api processes; api processes listen on all interfaces', () => {
    const apis = vigil.filter(([, s]) => roleOf(s) === 'api');
    for (const [name, s] of apis) {
      expect(s.environment.HOST, name).toBe('0.0.0.0');
      expect(s.ports, `${name} is reached through the proxy`).toBeUndefined();
    }
    // Services of an optional profile (Prometheus, `--profile metrics`) are not part of the API's address.
    const published = Object.entries(services).filter(([, s]) => s.ports?.length && !s.profiles);
    expect(published).toHaveLength(1);
    const [, proxy] = published[0]!;
    for (const [name, s] of apis) expect(proxy.command.join(' ')).toContain(`${name}:${s.environment.PORT}`);
    // Workers serve no HTTP: the image's HTTP health check is turned off for them.
    for (const [name, s] of vigil.filter(([, w]) => roleOf(w) === 'worker')) expect(s.healthcheck?.disable, name).toBe(true);
  });
});

describe('Prometheus example (deploy/prometheus/prometheus.yml, compose profile "metrics")', () => {
  const compose = parse(read('compose.yaml'), { merge: true });
  const services = compose.services as Record<string, any>;
  const vigil = Object.entries(services).filter(([, s]) => s.build !== undefined);
  const config = parse(read('deploy/prometheus/prometheus.yml'));

  it('scrapes every api and worker process of compose.yaml on its own metrics listener, reachable on the network', () => {
    const targets = (config.scrape_configs as any[]).flatMap((job) => {
      expect(job.metrics_path ?? '/metrics').toBe('/metrics');
      return (job.static_configs as any[]).flatMap((c) => c.targets as string[]);
    });
    const expected = vigil.map(([name, s]) => {
      // A metrics listener binds HOST: it must be every interface for Prometheus in another container.
      expect(s.environment.HOST, name).toBe('0.0.0.0');
      expect(s.environment.VIGIL_METRICS_PORT, name).toMatch(/^\d+$/);
      expect(s.environment.VIGIL_METRICS_PORT, name).not.toBe(s.environment.PORT);
      return `${name}:${s.environment.VIGIL_METRICS_PORT}`;
    });
    expect(targets.sort()).toEqual(expected.sort());
    const prometheus = Object.values(services).find((s) => /^prom\/prometheus:/.test(s.image));
    expect(prometheus.profiles).toEqual(['metrics']);
    expect(prometheus.volumes).toContain('./deploy/prometheus/prometheus.yml:/etc/prometheus/prometheus.yml:ro');
  });
});

describe('systemd unit', () => {
  const unit = read('deploy/systemd/vigil@.service');
  const directives = unit
    .split('\n')
    .filter((l) => /^[A-Za-z]+=/.test(l))
    .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)] as const);
  const { variables, roles, readme } = readmeConfiguration();

  it("starts `npm start`'s command with the instance as --role, as a non-root user", () => {
    const exec = directives.find(([k]) => k === 'ExecStart')![1].split(/\s+/);
    const start = startCommand();
    expect(exec[0]).toMatch(/\/node$/);
    const script = exec.findIndex((a) => a.endsWith(start[1]!));
    expect(exec.slice(script + 1)).toEqual([...start.slice(2), '--role', '%i']);
    expect(readme).toContain('vigil serve --role');
    expect(directives.find(([k]) => k === 'User')![1]).not.toMatch(/^(root|0)$/);
    expect(roles).toEqual(expect.arrayContaining(['all', 'api', 'worker']));
  });

  it('sets only documented variables, in the unit and in the example environment file', () => {
    const set = directives.filter(([k]) => k === 'Environment').map(([, v]) => v.split('=')[0]!);
    const example = read('deploy/systemd/vigil.env.example')
      .split('\n')
      .map((l) => /^#?([A-Z][A-Z0-9_]+)=/.exec(l)?.[1])
      .filter((v): v is string => Boolean(v));
    expect(set.length + example.length).toBeGreaterThan(0);
    for (const name of [...set, ...example]) expect(variables.has(name), `${name} in the README's configuration table`).toBe(true);
  });

  it('passes systemd-analyze verify', () => {
    const dir = mkdtempSync(join(tmpdir(), 'vigil-unit-'));
    const instance = join(dir, 'vigil@all.service');
    copyFileSync(join(ROOT, 'deploy/systemd/vigil@.service'), instance);
    const result = spawnSync('systemd-analyze', ['verify', '--man=no', instance], { encoding: 'utf8' });
    expect(result.error, 'systemd-analyze (Debian: package systemd) is needed for this test').toBeUndefined();
    // The unit's ExecStart names /usr/bin/node; where node lives elsewhere the binary check is all that differs.
    const problems = `${result.stdout}${result.stderr}`
      .split('\n')
      .filter((l) => l.trim() && !(process.execPath !== '/usr/bin/node' && l.includes('/usr/bin/node')));
    expect(problems).toEqual([]);
  });
});
