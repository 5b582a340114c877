/**
 * The MCP server over Streamable HTTP at `/mcp`, stateless (docs/agents.md): each POST carries
 * JSON-RPC messages and gets the answers as JSON, served by a fresh MCP server whose tools call
 * the Account Jobs routes of this app with the caller's own bearer. GET (a server-sent event
 * stream) and DELETE (ending a session) are answered 405 with `Allow: POST` by the not-found
 * handler, as the transport's specification allows a server without sessions to.
 */
import type { FastifyRequest } from 'fastify';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { createClient } from '../../../../packages/client/src/index.js';
import { createQrailMcpServer } from '../../../agents/mcp/mcp-server.js';
import { SERVICE_VERSION } from '../../../version.js';
import type { App } from '../../app-types.js';
import { bearerToken } from '../../plugins/auth.js';
import { authenticateAgent } from '../jobs/agent-auth.js';
import { IN_PROCESS_BASE, injectFetch } from './inject-fetch.js';

function webHeaders(req: FastifyRequest): Headers {
  const h = new Headers();
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined) continue;
    for (const one of Array.isArray(v) ? v : [v]) h.append(k, one);
  }
  return h;
}

export default async function mcpRoutes(app: App): Promise<void> {
  app.post(
    '/mcp',
    {
      // Plain JSON answers; errors before the transport (401, 413, 429) in the Account Jobs shape.
      config: { surface: 'jobs' },
      // The same bearer check as /v1/jobs, before the body is read: a machine credential or a Jobs
      // access token. Scopes are checked per tool, by the route each tool calls (403 as a tool error).
      onRequest: async (req) => void (await authenticateAgent(app, req)),
      // A JSON-RPC endpoint, not a REST operation: described in docs/agents.md, not in the OpenAPI document.
      schema: { hide: true },
    },
    async (req, reply) => {
      // authenticateAgent accepted this bearer; the tools' own requests carry it as it came.
      const bearer = bearerToken(req).token ?? '';
      const client = createClient({ baseUrl: IN_PROCESS_BASE, jobsToken: bearer, fetch: injectFetch(app, { ip: req.ip, requestId: req.id }) });
      const server = createQrailMcpServer(client.jobs, SERVICE_VERSION);
      const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true }); // no sessionIdGenerator: stateless
      // A caller that hangs up ends the tool calls still running for it (a wait_for_job stops polling).
      reply.raw.once('close', () => {
        if (!reply.raw.writableFinished) void server.close();
      });
      try {
        await server.connect(transport);
        const res = await transport.handleRequest(new Request(new URL(req.url, IN_PROCESS_BASE), { method: 'POST', headers: webHeaders(req) }), { parsedBody: req.body });
        reply.code(res.status);
        res.headers.forEach((v, k) => void reply.header(k, v));
        const text = await res.text();
        return await reply.send(text === '' ? undefined : text);
      } finally {
        await server.close();
      }
    },
  );
}
