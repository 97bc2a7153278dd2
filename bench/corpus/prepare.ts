/**
 * Extracts the corpus's sources (pages.json) from local git mirrors into the cache, one folder per
 * source: `git archive <commit> <paths> | tar -x`, then the source's root moved to the folder's top.
 * The mirrors are bare git directories as the fetch tool leaves them: <mirrors>/<owner>+<name>/repo
 * (VIGIL_CORPUS_MIRRORS, default /work/.mirror). Nothing is downloaded.
 *
 *   node --import tsx bench/corpus/prepare.ts            # the cache (sources not vendored)
 *   node --import tsx bench/corpus/prepare.ts --vendored # rewrite bench/corpus/vendored/ too
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CACHE_DIR, type CorpusSource, loadManifest, sourceDir, VENDORED_DIR } from './manifest.js';

const MIRRORS = process.env.VIGIL_CORPUS_MIRRORS ?? '/work/.mirror';

function gitDir(repo: string): string {
  const base = join(MIRRORS, repo.replace('/', '+'), 'repo');
  return existsSync(join(base, '.git')) ? join(base, '.git') : base;
}

/** Extracts one source into `dest` (replaced). */
function extract(source: CorpusSource, dest: string): void {
  const git = gitDir(source.repo);
  if (!existsSync(git)) throw new Error(`no mirror of ${source.repo} at ${git}: bring it in with the fetch tool (github:${source.repo})`);
  const tmp = mkdtempSync(join(tmpdir(), `corpus-${source.id}-`));
  try {
    const tar = join(tmp, 'src.tar');
    // stderr ignored: git names objects of the snapshot's commit that the mirror lacks (files over 4 MiB), outside the paths asked for.
    execFileSync('git', ['--git-dir', git, 'archive', '--format=tar', '-o', tar, source.commit, '--', ...source.paths], {
      stdio: ['ignore', 'ignore', 'ignore'],
    });
    const tree = join(tmp, 'tree');
    mkdirSync(tree);
    execFileSync('tar', ['-xf', tar, '-C', tree]);
    rmSync(dest, { recursive: true, force: true });
    mkdirSync(dest, { recursive: true });
    cpSync(join(tree, source.root), dest, { recursive: true });
    for (const p of source.paths) {
      const inRoot = source.root === '' || p === source.root || p.startsWith(`${source.root}/`);
      if (!inRoot) cpSync(join(tree, p), join(dest, basename(p)), { recursive: true });
    }
    writeFileSync(join(dest, '.corpus-source'), `${source.repo} ${source.commit}\n`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** Prepares every source not yet in the cache (or at another commit); `vendored`: rewrites the committed copies too. */
export function prepareCorpus(opts: { cacheDir?: string; vendored?: boolean; log?: (line: string) => void } = {}): void {
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  for (const source of loadManifest().sources) {
    if (source.vendored && !opts.vendored) continue;
    const dest = sourceDir(source, opts.cacheDir ?? CACHE_DIR);
    const marker = join(dest, '.corpus-source');
    if (!source.vendored && existsSync(marker) && execFileSync('cat', [marker], { encoding: 'utf8' }).includes(source.commit)) continue;
    extract(source, dest);
    log(`corpus: ${source.id} <- ${source.repo}@${source.commit.slice(0, 12)} (${source.paths.join(' ')})`);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  prepareCorpus({ vendored: process.argv.includes('--vendored') });
  process.stderr.write(`corpus ready: cache ${CACHE_DIR}, vendored ${VENDORED_DIR}\n`);
}
