import { graphqlQueryResource } from './graphql-query.resource';
import { GraphqlQueryRunController } from './run.controller';

/** Saved GraphQL queries (`/api/extras/graphql-queries/`, `run/`); `/api/graphql/` itself is the engine's (core/graphql). */
export const graphqlResources = [graphqlQueryResource];
export const graphqlControllers = [GraphqlQueryRunController];
export const graphqlProviders = [];
