/* eslint-disable */
/**
 * The HTTP API's types, generated from the OpenAPI document the server serves (GET /v1/openapi.json) by
 * `npm run api:types` (scripts/api-types.mjs, openapi-typescript). Do not edit: change the route's schema
 * in src/server/ and generate again; test/server/api-types.test.ts fails while this file is out of date.
 * The console reads its shapes from here (web/src/api.ts names the ones it uses).
 */
export interface paths {
  '/v1/flows': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The registered flows */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Registered flows by id (the latest registration of each id). */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['FlowInfo'][];
          };
        };
        /** @description Missing or unknown bearer token. */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
      };
    };
    put?: never;
    /**
     * Register a flow (admin); it replaces the same tenant's flow with the same id (a tenant's admin registers for that tenant, an admin without tenant a shared flow); each tenant may hold `--max-flows` uploaded flows
     * @description The body is the flow as JSON, or YAML with `Content-Type: application/yaml`. It is validated like `agent-runtime validate` (without connecting to its MCP servers); relative paths resolve against the server's `--flows DIR`. Its stdio MCP servers must use commands given with `--allow-stdio`, its HTTP MCP servers hosts given with `--allow-mcp-host`; it may not declare `providers`, and a `scripted:` model must lie in `--scripted-models DIR`.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': components['schemas']['FlowDefinition'];
          'application/yaml': string;
        };
      };
      responses: {
        /** @description The flow was registered. */
        201: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['RegisteredFlow'];
          };
        };
        /** @description Bad input (body, query, flow or run input). */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description Missing or unknown bearer token. */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description The token's role does not allow this. */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description FLOW_LIMIT: the tenant already holds `--max-flows` uploaded flows, or would hold more than `--max-flow-bytes` of them (registering an id it holds replaces that flow). */
        409: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description The request body is larger than the server accepts (1 MiB by default): PAYLOAD_TOO_LARGE. */
        413: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description The server is busy (large documents being parsed; see Retry-After) or shutting down. */
        503: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/flows/{flowId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** A registered flow's interface: its input schema and each node's outputs with their schemas */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          flowId: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description The flow the caller starts by this id (its own tenant’s, else the shared one). */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['FlowDetail'];
          };
        };
        /** @description Missing or unknown bearer token. */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description Unknown run (or another tenant's), flow or route. */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/flows/{flowId}/mcp/{server}/complete': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Suggestions for a prompt's argument or a resource template's variable from a flow's MCP server
     * @description MCP `completion/complete` on the flow's server (the caller's tenant's flow, else the shared one), for a person filling in a prompt or a resource template. A server without the completions capability suggests nothing (200, no values). 502 MCP_UNAVAILABLE when the server cannot be reached or refuses.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          flowId: string;
          server: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': components['schemas']['CompleteRequest'];
        };
      };
      responses: {
        /** @description The server's suggestions. */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Completion'];
          };
        };
        /** @description Bad input (body, query, flow or run input). */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description Missing or unknown bearer token. */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description The token's role does not allow this. */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description Unknown run (or another tenant's), flow or route. */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description The request body is larger than the server accepts (1 MiB by default): PAYLOAD_TOO_LARGE. */
        413: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description MCP_UNAVAILABLE: the MCP server could not be reached or refused the request. */
        502: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description The server is busy (large documents being parsed; see Retry-After) or shutting down. */
        503: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/flows/{flowId}/starters': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The chat starters of a flow: its `starters` server's prompts
     * @description MCP `prompts/list` of the server the flow's `starters` names (the caller's tenant's flow, else the shared one), only the prompts `starters.prompts` names when it does, in that order. A flow without `starters` has none (200, empty list).
     */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          flowId: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description The starters, in the order to show them. */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              starters: components['schemas']['Starter'][];
            };
          };
        };
        /** @description Missing or unknown bearer token. */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description The token's role does not allow this. */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description Unknown run (or another tenant's), flow or route. */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description MCP_UNAVAILABLE: the MCP server could not be reached or refused the request. */
        502: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description The server is busy (large documents being parsed; see Retry-After) or shutting down. */
        503: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/flows/{flowId}/starters/{name}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * A chat starter's text: the prompt filled in with its arguments
     * @description MCP `prompts/get` of one starter with its arguments; the text of its messages (one paragraph each, at most 20,000 characters) is what the console sends as the first message of a thread. 404 for a prompt that is not a starter of the flow; 400 naming a required argument left out.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          flowId: string;
          name: string;
        };
        cookie?: never;
      };
      requestBody?: {
        content: {
          'application/json': components['schemas']['StarterRequest'];
        };
      };
      responses: {
        /** @description The starter's text. */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              text: string;
            };
          };
        };
        /** @description Bad input (body, query, flow or run input). */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description Missing or unknown bearer token. */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description The token's role does not allow this. */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description Unknown run (or another tenant's), flow or route. */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description The request body is larger than the server accepts (1 MiB by default): PAYLOAD_TOO_LARGE. */
        413: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description MCP_UNAVAILABLE: the MCP server could not be reached or refused the request. */
        502: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description The server is busy (large documents being parsed; see Retry-After) or shutting down. */
        503: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/me': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Who the token belongs to (a console shows what the role allows) */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description The caller. */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Me'];
          };
        };
        /** @description Missing or unknown bearer token. */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/oauth/callback': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The OAuth redirect: the authorization server sends the person's browser back here */
    get: {
      parameters: {
        query?: {
          code?: string;
          error?: string;
          error_description?: string;
          iss?: string;
          state?: string;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description The tokens are stored and the run continues (an HTML page). */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'text/html': string;
          };
        };
        /** @description Bad input (body, query, flow or run input). */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description An MCP server's authorization server could not be used: AUTHORIZATION_FAILED. */
        502: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description The server is busy (large documents being parsed; see Retry-After) or shutting down. */
        503: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/runs': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** List runs, newest first */
    get: {
      parameters: {
        query?: {
          /** @description At most this many runs, newest first (default 100). */
          limit?: number;
          status?: 'running' | 'suspended' | 'completed' | 'failed' | 'cancelled';
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Run summaries. */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['RunSummary'][];
          };
        };
        /** @description Bad input (body, query, flow or run input). */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description Missing or unknown bearer token. */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
      };
    };
    put?: never;
    /** Start a run; it executes in the background */
    post: {
      parameters: {
        query?: never;
        header?: {
          /** @description Makes a retried request return the first successful response (remembered per server process, see docs/api.md). */
          'idempotency-key'?: string;
        };
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': components['schemas']['StartRun'];
        };
      };
      responses: {
        /** @description The run was created (status `running`); watch it with GET /v1/runs/{id}/events. */
        201: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['RunSummary'];
          };
        };
        /** @description Bad input (body, query, flow or run input). */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description Missing or unknown bearer token. */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description The token's role does not allow this. */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description Unknown run (or another tenant's), flow or route. */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description The request body is larger than the server accepts (1 MiB by default): PAYLOAD_TOO_LARGE. */
        413: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/runs/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The run summary */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description The run summary. */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['RunSummary'];
          };
        };
        /** @description Missing or unknown bearer token. */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description Unknown run (or another tenant's), flow or route. */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/runs/{id}/answer': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Answer the pending follow-up question; the run continues in the background */
    post: {
      parameters: {
        query?: never;
        header?: {
          /** @description Makes a retried request return the first successful response (remembered per server process, see docs/api.md). */
          'idempotency-key'?: string;
        };
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': components['schemas']['Answer'];
        };
      };
      responses: {
        /** @description The answer was recorded; the summary as the run continues. */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['RunSummary'];
          };
        };
        /** @description Bad input (body, query, flow or run input). */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description Missing or unknown bearer token. */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description The token's role does not allow this. */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description Unknown run (or another tenant's), flow or route. */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description The run is not waiting for this (nothing changed). */
        409: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description The request body is larger than the server accepts (1 MiB by default): PAYLOAD_TOO_LARGE. */
        413: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/runs/{id}/approval': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Approve or reject the pending write; the run continues in the background */
    post: {
      parameters: {
        query?: never;
        header?: {
          /** @description Makes a retried request return the first successful response (remembered per server process, see docs/api.md). */
          'idempotency-key'?: string;
        };
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': components['schemas']['Approval'];
        };
      };
      responses: {
        /** @description The decision was recorded; the summary as the run continues. */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['RunSummary'];
          };
        };
        /** @description Bad input (body, query, flow or run input). */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description Missing or unknown bearer token. */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description The token's role does not allow this. */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description Unknown run (or another tenant's), flow or route. */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description The run is not waiting for this (nothing changed). */
        409: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description The request body is larger than the server accepts (1 MiB by default): PAYLOAD_TOO_LARGE. */
        413: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/runs/{id}/authorization': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Start the authorization an MCP server needs for the run (Connect): the URL the person opens */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody?: {
        content: {
          'application/json': components['schemas']['AuthorizationStart'];
        };
      };
      responses: {
        /** @description The URL to open, or `authorized: true` when nothing is to be done. */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['AuthorizationStarted'];
          };
        };
        /** @description Bad input (body, query, flow or run input). */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description Missing or unknown bearer token. */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description The token's role does not allow this. */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description Unknown run (or another tenant's), flow or route. */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description The run is not waiting for this (nothing changed). */
        409: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description An MCP server's authorization server could not be used: AUTHORIZATION_FAILED. */
        502: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description The server is busy (large documents being parsed; see Retry-After) or shutting down. */
        503: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/runs/{id}/cancel': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Cancel a run that has not ended */
    post: {
      parameters: {
        query?: never;
        header?: {
          /** @description Makes a retried request return the first successful response (remembered per server process, see docs/api.md). */
          'idempotency-key'?: string;
        };
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description The cancelled run. */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['RunSummary'];
          };
        };
        /** @description Missing or unknown bearer token. */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description The token's role does not allow this. */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description Unknown run (or another tenant's), flow or route. */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description The run is not waiting for this (nothing changed). */
        409: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/runs/{id}/events': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The run's trace events as Server-Sent Events, replayed then live
     * @description Each SSE message is one trace event (docs/trace.md) as JSON in `data`, with `id` = the event's `seq`. Replays the events after `Last-Event-ID` (or `?after=`), then streams new ones as they are committed, with a `: keep-alive` comment line between them, and closes after `run.completed`, `run.failed` or `run.cancelled`. A suspended run keeps the stream open. Send the same `Authorization` header (read it with fetch streaming). While a streaming model writes a turn, transient `model.delta` messages (no `id`, not persisted: `text` so far and `toolCalls` being formed) come between them; the completed turn is the `model.response` event. A reader that takes nothing for 30 s while events wait is cut with an `event: error` message (`{error: {code: STREAM_TOO_SLOW, message}, lastEventId}`); reconnect with `Last-Event-ID` for the rest. The cap of open streams counts per tenant and token name; `HEAD` opens no stream.
     */
    get: {
      parameters: {
        query?: {
          /** @description Replay events with seq above this (the `Last-Event-ID` header wins when both are given). */
          after?: number | null;
        };
        header?: {
          'last-event-id'?: string;
        };
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description An event stream. */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'text/event-stream': string;
          };
        };
        /** @description Bad input (body, query, flow or run input). */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description Missing or unknown bearer token. */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description Unknown run (or another tenant's), flow or route. */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description Too many event streams open for this token. */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/runs/{id}/evidence': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The run's evidence records, in id order, with their payloads */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Evidence records (empty when none). */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Evidence'][];
          };
        };
        /** @description Missing or unknown bearer token. */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description Unknown run (or another tenant's), flow or route. */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/runs/{id}/evidence/{evidenceId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One evidence record: tool, arguments, time, outcome and full payload */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          evidenceId: string;
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description The evidence record. */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Evidence'];
          };
        };
        /** @description Missing or unknown bearer token. */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description Unknown run (or another tenant's), flow or route. */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/runs/{id}/fork': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Start a new run continuing from an event of this run; it continues in the background
     * @description The new run’s state is this run’s right after event `at` — its trace up to there, evidence, approvals, outputs and conversation — and it continues with `model`. Nothing before `at` is executed again. The new summary has `forkedFrom: {runId, seq}`. 400 when `at` is not an event a fork can continue from (after a tool call that ended its round; the message names the nearest ones).
     */
    post: {
      parameters: {
        query?: never;
        header?: {
          /** @description Makes a retried request return the first successful response (remembered per server process, see docs/api.md). */
          'idempotency-key'?: string;
        };
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': components['schemas']['Fork'];
        };
      };
      responses: {
        /** @description The new run, as it starts (`forkedFrom` names where it came from). */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['RunSummary'];
          };
        };
        /** @description Bad input (body, query, flow or run input). */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description Missing or unknown bearer token. */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description The token's role does not allow this. */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description Unknown run (or another tenant's), flow or route. */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description The run is not waiting for this (nothing changed). */
        409: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description The request body is larger than the server accepts (1 MiB by default): PAYLOAD_TOO_LARGE. */
        413: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/runs/{id}/messages': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Add a person's words to a running or suspended run (steering)
     * @description The message is kept at once and read by the run at the start of its next model round, where the model gets it as the user's words (`run.message` in the trace); a suspended run reads it once it goes on. 409 RUN_ENDED for a run that has ended, 413 MESSAGE_TOO_LONG over 4000 characters, 429 TOO_MANY_MESSAGES while 20 messages wait unread; nothing is kept then.
     */
    post: {
      parameters: {
        query?: never;
        header?: {
          /** @description Makes a retried request return the first successful response (remembered per server process, see docs/api.md). */
          'idempotency-key'?: string;
        };
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': components['schemas']['RunMessageRequest'];
        };
      };
      responses: {
        /** @description The message was kept; the run reads it at its next round. */
        201: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['RunMessage'];
          };
        };
        /** @description Bad input (body, query, flow or run input). */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description Missing or unknown bearer token. */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description The token's role does not allow this. */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description Unknown run (or another tenant's), flow or route. */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description RUN_ENDED: the run has ended and takes no more messages (nothing kept). */
        409: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description MESSAGE_TOO_LONG: over 4000 characters; PAYLOAD_TOO_LARGE: a body over the limit. */
        413: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description TOO_MANY_MESSAGES: 20 messages already wait unread for the run (nothing kept). */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/runs/{id}/retry': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Take a failed run up again in the node that failed; it continues in the background
     * @description For MODEL_FAILED and TOOLS_UNAVAILABLE the same round is asked again; for NO_PROGRESS, ROUND_LIMIT and FAILED_BY_MODEL the node starts its round and stall counts afresh and the model is told why it is retried. The conversation, evidence, approvals and outputs stay; writes already executed are not executed again. 409 when the run has not failed (or failed outside a node).
     */
    post: {
      parameters: {
        query?: never;
        header?: {
          /** @description Makes a retried request return the first successful response (remembered per server process, see docs/api.md). */
          'idempotency-key'?: string;
        };
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody?: {
        content: {
          'application/json': components['schemas']['Retry'];
        };
      };
      responses: {
        /** @description The run was taken up again (`run.retried`); the summary as it continues. */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['RunSummary'];
          };
        };
        /** @description Bad input (body, query, flow or run input). */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description Missing or unknown bearer token. */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description The token's role does not allow this. */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description Unknown run (or another tenant's), flow or route. */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description The run is not waiting for this (nothing changed). */
        409: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description The request body is larger than the server accepts (1 MiB by default): PAYLOAD_TOO_LARGE. */
        413: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/threads': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The token's tenant's threads, most recently updated first, paged */
    get: {
      parameters: {
        query?: {
          /** @description The `next` of the previous page. */
          after?: string;
          limit?: number;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description A page of threads. */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ThreadList'];
          };
        };
        /** @description Bad input (body, query, flow or run input). */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description Missing or unknown bearer token. */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/threads/{threadId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** A thread: its messages (user and assistant) and its runs */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          threadId: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description The thread. */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Thread'];
          };
        };
        /** @description Missing or unknown bearer token. */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description Unknown run (or another tenant's), flow or route. */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/threads/{threadId}/chat': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Chat with a thread the way the AI SDK's useChat does; answers the UI message stream */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          threadId: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': components['schemas']['ChatRequest'];
        };
      };
      responses: {
        /** @description The AI SDK UI message stream (SSE, `x-vercel-ai-ui-message-stream: v1`) until the run suspends or ends. */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'text/event-stream': string;
          };
        };
        /** @description Bad input (body, query, flow or run input). */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description Missing or unknown bearer token. */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description The token's role does not allow this. */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description Unknown run (or another tenant's), flow or route. */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description The run is not waiting for this (nothing changed). */
        409: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description The request body is larger than the server accepts (1 MiB by default): PAYLOAD_TOO_LARGE. */
        413: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description Too many event streams open for this token. */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/threads/{threadId}/messages': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Send a message to a thread: a new run, or the answer to its last run's question */
    post: {
      parameters: {
        query?: never;
        header?: {
          /** @description Makes a retried request return the first successful response (remembered per server process, see docs/api.md). */
          'idempotency-key'?: string;
        };
        path: {
          threadId: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': components['schemas']['StartRun'];
        };
      };
      responses: {
        /** @description The message was accepted: the summary of the run it started or answered. */
        201: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['RunSummary'];
          };
        };
        /** @description Bad input (body, query, flow or run input). */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description Missing or unknown bearer token. */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description The token's role does not allow this. */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description Unknown run (or another tenant's), flow or route. */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description The run is not waiting for this (nothing changed). */
        409: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description The request body is larger than the server accepts (1 MiB by default): PAYLOAD_TOO_LARGE. */
        413: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/webhooks/deliveries': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The delivery log of the webhooks (serve --webhooks), newest first */
    get: {
      parameters: {
        query?: {
          /** @description At most this many deliveries, newest first (default 100). */
          limit?: number;
          /** @description Only this webhook's deliveries (its name). */
          webhook?: string;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Deliveries of events to webhooks, newest first. */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['WebhookDelivery'][];
          };
        };
        /** @description Bad input (body, query, flow or run input). */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description Missing or unknown bearer token. */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
        /** @description The token's role does not allow this. */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Error'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
}
export type webhooks = Record<string, never>;
export interface components {
  schemas: {
    Answer: {
      /**
       * @description Only for an MCP server's question (`pending.elicitation`): default accept.
       * @enum {string}
       */
      action?: 'accept' | 'decline' | 'cancel';
      /** @description The pending item id this answer is for; 409 when the run waits for another. */
      expect?: string;
      /** @description The answer; required unless `action` is decline or cancel. To an MCP server's form: its fields as a JSON object. */
      text?: string;
    };
    Approval: {
      /** @description With `approve`: edited arguments of the pending write. They go through the guards again (the changes count as the user's words); refused with 400 ARGS_REFUSED naming the check, else the approval binds to them (docs/approvals.md). */
      args?: {
        [key: string]: unknown;
      };
      comment?: string;
      /** @enum {string} */
      decision: 'approve' | 'reject';
      /** @description The pending item id this decision is for; 409 when the run waits for another. */
      expect?: string;
    };
    AuthorizationStart: {
      /** @description The pending item id (`suspension.pending.id`): refused with 409 when the run waits for another. */
      expect?: string;
    };
    AuthorizationStarted: {
      /** @description The authorization server's page the person opens; it comes back to GET /v1/oauth/callback. */
      authorizationUrl?: string;
      /** @description True when the stored tokens already work: the run continues at once (`run`), no URL to open. */
      authorized: boolean;
      /** @description When the authorization started here expires. */
      expiresAt?: string;
      run?: components['schemas']['RunSummary'] & unknown;
      /** @description The MCP server to authorize. */
      server: string;
    };
    ChatRequest: {
      flow?: {
        [key: string]: unknown;
      };
      flowId?: string;
      /** @description useChat's chat id (the thread is the path's). */
      id?: string;
      messageId?: string;
      messages: ({
        parts?: {
          [key: string]: unknown;
        }[];
        role: string;
      } & {
        [key: string]: unknown;
      })[];
      model?: string;
      trigger?: string;
    } & {
      [key: string]: unknown;
    };
    CompleteRequest: {
      /** @description The argument (or template variable) to complete */
      argument: string;
      /** @description The other arguments already filled in, by name */
      context?: {
        [key: string]: string;
      };
      /** @description The prompt whose argument is completed */
      prompt?: string;
      /** @description The resource template (its URI template) whose variable is completed */
      template?: string;
      /**
       * @description What the person typed so far
       * @default
       */
      value: string;
    };
    Completion: {
      /** @description True when the server has more than it sent */
      hasMore?: boolean;
      /** @description How many the server has in all, if it said */
      total?: number;
      /** @description At most 100 suggestions, best first */
      values: string[];
    };
    Error: {
      error: {
        /**
         * @description One of BAD_REQUEST, FLOW_INVALID, INPUT_INVALID, IDEMPOTENCY_KEY_REUSED, UNAUTHORIZED, FORBIDDEN, NOT_FOUND, RUN_NOT_FOUND, FLOW_NOT_FOUND, EVIDENCE_NOT_FOUND, THREAD_NOT_FOUND, CONFLICT, THREAD_BUSY, ARGS_REFUSED, RUN_ENDED, MESSAGE_TOO_LONG, TOO_MANY_MESSAGES, FLOW_LIMIT, PAYLOAD_TOO_LARGE, TOO_MANY_STREAMS, SHUTTING_DOWN, BUSY, AUTHORIZATION_FAILED, MCP_UNAVAILABLE, INTERNAL (docs/api.md "Errors").
         * @example CONFLICT
         */
        code: string;
        message: string;
        /** @description Each problem of an invalid flow or input, one line each. */
        problems?: string[];
      };
    };
    Evidence: {
      args: {
        [key: string]: unknown;
      };
      callId: string;
      /** @description For a look-back that confirmed an interrupted write: that write’s fingerprint. */
      confirmsFingerprint?: string;
      errorCode: string | null;
      /** @description sha256 of the tool and its canonical arguments. */
      fingerprint: string;
      /**
       * @description `ev_1`, `ev_2`, … per run, in the order calls executed.
       * @example ev_1
       */
      id: string;
      /** @description True for a runtime look-back query. */
      lookBack?: boolean;
      nodeId: string;
      /** @enum {string} */
      outcome: 'SUCCESS' | 'FAILED';
      /** @description What the call returned (the MCP result's structuredContent, else its text parsed as JSON, else the text), never cut. */
      payload?: unknown;
      /** @example space_list */
      tool: string;
      /** @description When the call executed (ISO 8601, UTC). */
      ts: string;
    };
    /** @description A flow (docs/flows.md; JSON Schema in schema/flow.schema.json of the package). */
    FlowDefinition: {
      [key: string]: unknown;
    };
    FlowDetail: components['schemas']['FlowInfo'] & {
      /** @description JSON Schema of the run input (`POST /v1/runs` `input`). */
      input: {
        [key: string]: unknown;
      };
      /** @description The nodes in file order, each with its declared outputs. */
      nodes: {
        id: string;
        outputs: {
          [key: string]: components['schemas']['PublishedOutput'];
        };
      }[];
      /** @description JSON Schema of a run summary's `outputs` (node id → output key → value), for generating types; each output's `schema` is embedded as is. */
      outputsSchema: {
        [key: string]: unknown;
      };
    };
    FlowInfo: {
      description?: string;
      flowId: string;
      /** @enum {string} */
      origin: 'dir' | 'upload';
      path?: string;
      registeredAt: string;
      tenant?: string;
      version: number | string;
    };
    Fork: {
      /**
       * @description The `seq` of the event to continue after
       * @example 12
       */
      at: number;
      /**
       * @description Continue with the flow registered now under the run’s flow id, which must have this version (400 naming the registered version otherwise); default: the run’s own flow
       * @example 2
       */
      flowVersion?: string;
      /**
       * @description Continue with this model (`<provider>:<model id>`); default: the run’s
       * @example anthropic:claude-sonnet-4-5
       */
      model?: string;
    };
    Me: {
      name: string;
      /** @enum {string} */
      role: 'viewer' | 'operator' | 'admin';
      tenant: string | null;
    };
    /** @description A gated write waiting for approval, or a question waiting for an answer. */
    PendingItem:
      | {
          /** @description Who has approved so far, in order, while more approvals are needed (docs/approvals.md). */
          approvedBy?: {
            at: string;
            comment: string | null;
            role: string | null;
            who: string;
          }[];
          /** @description How many different people must approve, and with which token roles. */
          approvers?: {
            count: number;
            roles?: string[];
          };
          args: {
            [key: string]: unknown;
          };
          /** @description The MCP server annotates the tool `destructiveHint: true`. */
          destructive?: boolean;
          /** @description Set once the approval expired and was escalated (`onExpiry: escalate`); it still waits for a person. */
          escalatedAt?: string;
          /** @description Set once the approval expired and was rejected (`onExpiry: reject`). */
          expiredAt?: string;
          /** @description When the approval expires (ISO 8601; the tool policy's `approval.expiresAfter` after the suspension); absent when it never does. */
          expiresAt?: string;
          /** @description The pending item id; send it as `expect`. */
          id?: string;
          /** @description Argument name → where its value (or each element or field of it) was found: the evidence id, the path of the leaf in its payload and, for a match inside a text, the span (docs/flows.md, matching); absent when none. */
          matches?: {
            [key: string]: {
              /** @description Inside the argument: [] the value itself, [1] its second element, ["city"] a field. */
              at: (string | number)[];
              context?: string;
              derivation?: string;
              evidenceId?: string;
              /** @description The matching leaf in the evidence payload ([] the payload itself). */
              path?: (string | number)[];
              /** @enum {string} */
              source: 'evidence' | 'user' | 'derived';
              /** @description A match inside a text: [start, end) in the string at `path` (UTF-16 code units). */
              span?: [number, number];
              /** @enum {string} */
              trust?: 'user' | 'trusted' | 'untrusted' | 'derived';
            }[];
          };
          /** @description Argument name → the evidence id its value was found in (`source: evidence` contracts). */
          provenance?: {
            [key: string]: string;
          };
          summary: string;
          tool: string;
          /** @description Argument name → the user's words (run input or a follow-up answer) its value was found in (`source: user` contracts); absent when none. */
          userProvenance?: {
            [key: string]: string;
          };
        }
      | {
          /** @description Set when an MCP server needs a person to authorize it (docs/mcp.md, "Connect"): `POST /v1/runs/{id}/authorization` starts it (the console's Connect button), or `agent-runtime mcp login` then `answer`. */
          authorization?: {
            /** @description The id of the MCP server (the flow's `mcpServers` key). */
            server: string;
            /** @description The tool whose call the server refused; absent when listing its tools was refused. */
            tool?: string;
          };
          /** @description Set when an MCP server asked the question during a tool call (docs/mcp.md, "Elicitation"): answer with `action`, and accepted forms with their fields as a JSON object in `text`. */
          elicitation?: {
            elicitationId?: string;
            fingerprint: string;
            message: string;
            /** @enum {string} */
            mode: 'form' | 'url';
            requestedSchema?: {
              [key: string]: unknown;
            };
            round?: {
              inputRequests: {
                [key: string]: {
                  method: string;
                  params?: {
                    [key: string]: unknown;
                  };
                };
              };
              requestState?: string;
            };
            server: string;
            tool: string;
            url?: string;
          };
          /** @description The pending item id; send it as `expect`. */
          id?: string;
          options: string[] | null;
          question: string;
        }
      | {
          /** @description The pending item id. */
          id?: string;
          /** @description The MCP task the run waits for (docs/mcp.md, "Tools that run as tasks"). */
          task: {
            fingerprint: string;
            nextPollAt: string;
            pollInterval: number;
            server: string;
            startedAt: string;
            status: string;
            statusMessage?: string;
            taskId: string;
            tool: string;
            ttl?: number | null;
          };
        };
    PublishedOutput: {
      description?: string;
      from?: string[];
      required: boolean;
      /** @description The JSON Schema the output's value satisfies (builtin_output_set rejects others with OUTPUT_SCHEMA_MISMATCH); absent: any JSON value. */
      schema?: {
        [key: string]: unknown;
      };
      sources: ('evidence' | 'user' | 'node' | 'model' | 'code')[];
    };
    RegisteredFlow: {
      flowId: string;
      version: number | string;
    };
    Retry: {
      /**
       * @description Continue with this model from now on (`<provider>:<model id>`)
       * @example anthropic:claude-sonnet-4-5
       */
      model?: string;
    };
    RunMessage: {
      at: string;
      messageId: string;
      runId: string;
      seq: number;
      text: string;
      who: string | null;
    };
    RunMessageRequest: {
      /**
       * @description What the person says to the run (not empty, at most 4000 characters).
       * @example use the other card, the one ending 4242
       */
      text: string;
    };
    RunSummary: {
      /**
       * @description For a top-level run that failed MODEL_FAILED: the CLI command and the HTTP request that retry it with another model M.
       * @example {
       *       "command": "agent-runtime retry run_3f2a9c0d1b7e4a6f8c21 --model M",
       *       "request": "POST /v1/runs/run_3f2a9c0d1b7e4a6f8c21/retry {\"model\": \"M\"}"
       *     }
       */
      continueWith?: {
        command: string;
        request: string;
      };
      createdAt: string;
      failedNode?: string;
      flowId: string;
      /** @description For a forked run: the run and the event it continues from. */
      forkedFrom?: {
        runId: string;
        seq: number;
      };
      /** @description A running run whose MCP server's question is held open until `until`: answer it like a suspended run's (`POST /v1/runs/{id}/answer`, `expect` = `id`). */
      held?: {
        elicitation: {
          elicitationId?: string;
          fingerprint: string;
          message: string;
          /** @enum {string} */
          mode: 'form' | 'url';
          requestedSchema?: {
            [key: string]: unknown;
          };
          round?: {
            inputRequests: {
              [key: string]: {
                method: string;
                params?: {
                  [key: string]: unknown;
                };
              };
            };
            requestState?: string;
          };
          server: string;
          tool: string;
          url?: string;
        };
        id: string;
        question: string;
        until: string;
      };
      message?: string;
      /** @description Outputs of the completed nodes, keyed by node id, as written (JSON of any type); `GET /v1/flows/{flowId}` publishes their schemas (`outputsSchema`). */
      outputs: {
        [key: string]: {
          [key: string]: unknown;
        };
      };
      parentRunId?: string;
      reason?: string;
      /** @description The run's answer to the person: the finish summary or text answer of the last node of a completed run; null otherwise. */
      reply: string | null;
      /** @example run_3f2a9c0d1b7e4a6f8c21 */
      runId: string;
      /** @enum {string} */
      status: 'running' | 'suspended' | 'completed' | 'failed' | 'cancelled';
      suspension?: {
        /** @description Every item the run waits for when several parallel branches wait at once (the first is `pending`); each is answered by its id. */
        items?: {
          /** @enum {string} */
          kind: 'APPROVAL' | 'FOLLOW_UP' | 'TASK';
          nodeId: string;
          pending: components['schemas']['PendingItem'];
        }[];
        /** @enum {string} */
        kind: 'APPROVAL' | 'FOLLOW_UP' | 'TASK';
        pending: components['schemas']['PendingItem'];
      };
      /** @description The thread the run belongs to, if any. */
      threadId?: string;
      updatedAt: string;
      usage: {
        /** @description Prompt tokens read from the provider cache (part of inputTokens) */
        cacheReadTokens?: number;
        /** @description Prompt tokens written to the provider cache (part of inputTokens) */
        cacheWriteTokens?: number;
        inputTokens: number;
        outputTokens: number;
        totalTokens: number;
      };
    };
    Starter: {
      /** @description What the person fills in before the starter is sent */
      arguments: {
        description?: string;
        name: string;
        required?: boolean;
      }[];
      description?: string;
      /** @description The prompt's name on the server */
      name: string;
      title?: string;
    };
    StarterRequest: {
      /** @description The prompt's arguments, by name */
      arguments?: {
        [key: string]: string;
      };
    };
    StartRun: {
      /** @description An inline flow (admin only: a flow can start MCP server processes); relative paths resolve against the server's --flows DIR. */
      flow?: {
        [key: string]: unknown;
      };
      /** @description A registered flow (GET /v1/flows). */
      flowId?: string;
      /** @description The run input, validated against the flow's `input` schema; a string is shorthand for `{text}`. Default `{}`. */
      input?:
        | string
        | {
            [key: string]: unknown;
          };
      /** @description `<provider>:<model id>` overriding the flow's model; a relative `scripted:` path resolves against the flow's folder. */
      model?: string;
    };
    Thread: {
      createdAt: string;
      messages: components['schemas']['ThreadMessage'][];
      runs: components['schemas']['RunSummary'][];
      /**
       * @description `idle`: a message starts a run; `waiting`: the last run asks a question and a message answers it; `busy`: a message is refused (409 THREAD_BUSY).
       * @enum {string}
       */
      state: 'idle' | 'waiting' | 'busy';
      tenant: string | null;
      threadId: string;
      updatedAt: string;
    };
    ThreadList: {
      /** @description Pass as `after` for the next page; null: no more. */
      next: string | null;
      threads: {
        createdAt: string;
        lastRunId: string | null;
        runs: number;
        threadId: string;
        updatedAt: string;
      }[];
    };
    ThreadMessage: {
      /** @description When it was committed (ISO 8601). */
      at: string;
      /** @enum {string} */
      kind: 'input' | 'answer' | 'decision' | 'question' | 'approval' | 'reply' | 'failure';
      pending?: components['schemas']['PendingItem'] & unknown;
      /** @enum {string} */
      role: 'user' | 'assistant';
      runId: string;
      text: string;
    };
    TraceEvent: {
      nodeId?: string;
      round?: number;
      runId: string;
      seq: number;
      ts: string;
      /** @example run.suspended */
      type: string;
    } & {
      [key: string]: unknown;
    };
    WebhookDelivery: {
      attempts: number;
      createdAt: string;
      deliveredAt: string | null;
      /** @example run.suspended */
      event: string;
      /** @description The `X-Agent-Runtime-Event` id: the same for each attempt. */
      eventId: string;
      lastError: string | null;
      /** @description HTTP status of the last attempt. */
      lastStatus: number | null;
      nextAttemptAt: string | null;
      runId: string;
      /** @enum {string} */
      status: 'pending' | 'delivered' | 'failed';
      tenant: string | null;
      /** @description The webhook's `name` (default: its URL's host:port). */
      webhook: string;
    };
  };
  responses: never;
  parameters: never;
  requestBodies: never;
  headers: never;
  pathItems: never;
}
export type $defs = Record<string, never>;
export type operations = Record<string, never>;
