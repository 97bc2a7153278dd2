/**
 * Reads a V8 .cpuprofile (node --cpu-prof) and says where the CPU went: self time by file, and inclusive
 * time by function for functions in files matching `focus` (each sample counted once per function on its
 * stack), as shares of the profile's busy time (idle excluded).
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface Share {
  name: string;
  ms: number;
  share: number;
}

/** A frame's file, shortened to what follows the project root or node_modules/. */
function fileOf(url: string, root: string): string {
  if (!url) return '(native/vm)';
  const path = url.replace(/^file:\/\//, '');
  const nm = path.lastIndexOf('node_modules/');
  if (nm >= 0) return path.slice(nm);
  return path.startsWith(root) ? path.slice(root.length) : path;
}

/**
 * `byFile`: self time by file, where time in native code (no script URL: built-ins, JSON, regular
 * expressions, Buffer and socket calls) is charged to the nearest JavaScript caller's file. `bySelf`: the
 * same by function. `byFunction`: inclusive time of functions in files matching `focus`.
 */
export function summarise(file: string, root: string, focus: RegExp, top = 15): { busyMs: number; byFile: Share[]; bySelf: Share[]; byFunction: Share[] } {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<string, number>();
  const selfFn = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let busy = 0;
  profile.samples.forEach((id, i) => {
    const dt = (profile.timeDeltas[i] ?? 0) / 1000;
    const node = nodes.get(id)!;
    if (node.callFrame.functionName === '(idle)') return;
    // The profiler's own stop call (node:inspector) is the bench's work, not the engine's.
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) if (nodes.get(cur)!.callFrame.url === 'node:inspector') return;
    busy += dt;
    // Native frames are charged to the nearest caller with a script URL.
    let owner: ProfileNode = node;
    while (!owner.callFrame.url && !owner.callFrame.functionName.startsWith('(') && parent.has(owner.id)) owner = nodes.get(parent.get(owner.id)!)!;
    const special = owner.callFrame.functionName.startsWith('(') && !owner.callFrame.url;
    const key = special ? owner.callFrame.functionName : fileOf(owner.callFrame.url, root);
    self.set(key, (self.get(key) ?? 0) + dt);
    const fnKey = special ? key : `${key}:${owner.callFrame.functionName || '(anonymous)'}`;
    selfFn.set(fnKey, (selfFn.get(fnKey) ?? 0) + dt);
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const f = nodes.get(cur)!.callFrame;
      const where = fileOf(f.url, root);
      if (!focus.test(where)) continue;
      const name = `${where}:${f.functionName || '(anonymous)'}`;
      if (seen.has(name)) continue;
      seen.add(name);
      inclusive.set(name, (inclusive.get(name) ?? 0) + dt);
    }
  });
  const rank = (m: Map<string, number>) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, ms]) => ({ name, ms, share: ms / busy }));
  return { busyMs: busy, byFile: rank(self), bySelf: rank(selfFn), byFunction: rank(inclusive) };
}
