/** The engine's ApiModel from a dereferenced document: narrowed to its version's typed model, then built. */
import type { ApiModel, Operation } from '../types.js';
import type { Info, ParsedDocument } from './document.js';
import { openApi3Operations, openApi3Server } from './openapi3.js';
import type { ServerInfo } from './operation.js';
import { readOpenApi3, readSwagger2 } from './read.js';
import { swagger2Operations, swagger2Server } from './swagger2.js';

/** Turns a dereferenced 2.0 / 3.x document into the engine's operation model. */
export function buildModel(doc: ParsedDocument, targetUrl: string): ApiModel {
  const specVersion = String(doc.openapi ?? doc.swagger);
  if (String(doc.swagger ?? '').startsWith('2')) {
    const swagger2 = readSwagger2(doc);
    return modelOf(swagger2.info, specVersion, swagger2Server(swagger2), swagger2Operations(swagger2));
  }
  const openApi3 = readOpenApi3(doc);
  return modelOf(openApi3.info, specVersion, openApi3Server(openApi3, targetUrl), openApi3Operations(openApi3));
}

function modelOf(info: Info, specVersion: string, server: ServerInfo, operations: Operation[]): ApiModel {
  return {
    title: info.title ?? 'API',
    apiVersion: info.version ?? '',
    specVersion,
    serverPath: server.serverPath.replace(/\/+$/, ''),
    serverSchemes: server.serverSchemes,
    operations,
  };
}
