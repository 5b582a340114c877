import { SERVICE_VERSION } from '../version.js';
import { EXIT } from './cli-command.js';
import { remoteCommand, requireJobsAuth } from './remote-session.js';

/**
 * `qrail mcp`: the qrail tools (src/agents/mcp) for an agent framework that starts MCP servers as
 * processes and talks to them over stdin/stdout. The tools call the service's Account Jobs API
 * with the machine credential the client commands use (the saved one, or QRAIL_TOKEN), so they
 * cost what the same REST calls cost. stdout carries MCP messages only; notes go to stderr.
 */
export const mcpCommand = remoteCommand({
  name: 'mcp',
  summary: 'serve the qrail tools to an agent framework over MCP on stdin/stdout (a machine credential pays)',
  description: `Runs a Model Context Protocol server on stdin/stdout until stdin closes. Its tools (list_capabilities,
get_balance, submit_job, wait_for_job, get_job, get_receipt, cancel_job, list_jobs) call the
Account Jobs API of the service at --url with the saved machine credential, or QRAIL_TOKEN (a qrj_
secret or a Jobs access token): each costs exactly what the same REST call costs. Agent frameworks
start it from their MCP configuration (docs/agents.md); the same tools are served over HTTP at /mcp.`,
  examples: ['qrail mcp', 'QRAIL_URL=https://qrail.example QRAIL_TOKEN=qrj_… qrail mcp'],
  async run(_input, svc, ctx) {
    requireJobsAuth(svc);
    // The MCP SDK (with its schema library) is most of the CLI's import time: loaded only here.
    const [{ StdioServerTransport }, { createQrailMcpServer }] = await Promise.all([import('@modelcontextprotocol/sdk/server/stdio.js'), import('../agents/mcp/mcp-server.js')]);
    const server = createQrailMcpServer(svc.client.jobs, SERVICE_VERSION);
    const closed = new Promise<void>((resolve) => (server.server.onclose = resolve));
    // The client ending its side of stdin ends the session (the transport itself only stops reading).
    process.stdin.once('end', () => void server.close());
    await server.connect(new StdioServerTransport());
    ctx.io.err(`qrail MCP server on stdio for ${svc.url}\n`);
    await closed;
    return EXIT.OK;
  },
});
