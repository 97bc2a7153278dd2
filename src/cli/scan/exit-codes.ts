/** Exit codes of vigil scan and vigil scans wait (docs/cli.md). */
export const SCAN_EXIT = { passed: 0, gate: 1, scanFailed: 2, usage: 3, refused: 4, output: 5 } as const;
