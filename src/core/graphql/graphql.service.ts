import { Injectable, Logger } from '@nestjs/common';
import type { RequestContext } from '../context';
import type { GraphqlRequest, GraphqlResponse } from './graphql-engine';

export type { FormattedError, GraphqlRequest, GraphqlResponse } from './graphql-engine';

type Engine = typeof import('./graphql-engine');
let loaded: Engine | undefined;
/**
 * The GraphQL engine (graphql-engine.ts: graphql-js, the schema builder, the loader), loaded at
 * the first query or saved query checked: ~2 MB of heap, and their code, that a process serving
 * none does without.
 */
const engine = (): Engine => (loaded ??= require('./graphql-engine') as Engine);

/** Parses and validates a query (graphql-engine.ts): its errors' messages; none when it may run. */
export async function queryErrors(ctx: RequestContext, query: string): Promise<string[]> {
  return (await engine().checkQuery(ctx, query)).errors.map((e) => e.message);
}

/** The variables a query's operations declare, each with its default value (or "" without one). */
export function declaredVariables(query: string): Record<string, unknown> {
  return engine().declaredVariables(query);
}

/** Runs GraphQL queries (graphql-engine.ts `runQuery`). */
@Injectable()
export class GraphqlService {
  private readonly logger = new Logger('GraphQL');

  run(ctx: RequestContext, request: GraphqlRequest): Promise<GraphqlResponse> {
    return engine().runQuery(ctx, request, this.logger);
  }
}
