/**
 * The corpus manifest (pages.json): which public repositories, at which commits, give which pages,
 * and where each source's files are read from (the committed vendored copy or the prepared cache).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface CorpusSource {
  id: string;
  /** owner/name on GitHub. */
  repo: string;
  commit: string;
  licence: string;
  /** The folder of the repository served as /<id>/ ('' for the repository's top). */
  root: string;
  /** What is extracted (paths outside `root`, such as a licence file, land at the top of /<id>/). */
  paths: string[];
  /** Committed under bench/corpus/vendored/<id>/ (the CI subset); otherwise read from the cache. */
  vendored?: boolean;
}

export interface CorpusPage {
  name: string;
  source: string;
  /** The page's file, relative to its source's root. */
  path: string;
  kind: string;
  /** One of the CI test's pages (its source is vendored). */
  subset?: boolean;
  /** Response headers the page is served with (e.g. a strict Content-Security-Policy). */
  headers?: Record<string, string>;
}

export interface CorpusManifest {
  sources: CorpusSource[];
  pages: CorpusPage[];
}

export const CORPUS_DIR = fileURLToPath(new URL('.', import.meta.url));
export const VENDORED_DIR = join(CORPUS_DIR, 'vendored');
/** Where prepare.ts extracts the sources that are not vendored (VIGIL_CORPUS_CACHE, else bench/corpus/.cache). */
export const CACHE_DIR = process.env.VIGIL_CORPUS_CACHE ?? join(CORPUS_DIR, '.cache');

export function loadManifest(): CorpusManifest {
  return JSON.parse(readFileSync(join(CORPUS_DIR, 'pages.json'), 'utf8')) as CorpusManifest;
}

/** The folder a source's files are served from. */
export function sourceDir(source: CorpusSource, cacheDir = CACHE_DIR): string {
  return join(source.vendored ? VENDORED_DIR : cacheDir, source.id);
}

/** A page's path on the corpus server: /<source id>/<path>. */
export const pagePath = (page: CorpusPage) => `/${page.source}/${page.path}`;
