import type { MethodProtocol } from './protocol';
import { rbSqlProtocols } from './rb-sql';

import { drChainProtocols } from './dr-chain';

import { r3Protocols } from './r3';
import { ucsSqlProtocols } from './ucs-sql';
export type { MethodProtocol } from './protocol';

/**
 * Protocols contributed by the pipelines, checked before the built-in ones, in this order. One import and one
 * entry per method file.
 */
export const methodProtocols: MethodProtocol[] = [
  ...rbSqlProtocols,
  ...ucsSqlProtocols,
  ...r3Protocols,
  ...drChainProtocols,
];
