/** Types of build.mjs, for the tests that use it. */
export interface Metafile {
  inputs: Record<string, unknown>;
}
export declare const SERVER_ONLY: { packages: string[]; sources: string[] };
export declare function serverInputs(metafile: Metafile): string[];
export declare function buildClient(options?: { outfile?: string }): Promise<{ outfile: string; metafile: Metafile }>;
