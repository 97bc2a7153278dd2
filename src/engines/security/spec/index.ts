/** Spec parsing: load (fetch, parse, dereference), then build the engine's ApiModel per version. */
export { DISCOVERY_PATHS, dereferenceSpec, loadSpec, parseSpecText, type LoadedSpec, type SpecSource } from './load.js';
export { buildModel } from './model.js';
export type { ParsedDocument } from './document.js';
