import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { registerJobsTools, type AgentJobsPort } from './jobs-tools.js';

export type { AgentJobsPort } from './jobs-tools.js';

const INSTRUCTIONS = `qrail runs quantum-circuit and media capabilities as prepaid jobs paid from the account balance (USD).
Typical use: list_capabilities (prices, request schemas, example requests) → get_balance → submit_job with your own
idempotency_key and a max_total_price ceiling → wait_for_job → the result and receipt are on the job (get_receipt for the
cost alone). Each tool costs exactly what the same REST call costs: only a completed job is charged, its quoted price.`;

/**
 * The qrail MCP server over a jobs client: the same tools whichever transport carries it
 * (stdio for `qrail mcp`, stateless Streamable HTTP for `/mcp`, a new server per request there).
 */
export function createQrailMcpServer(jobs: AgentJobsPort, version: string): McpServer {
  const server = new McpServer({ name: 'qrail', title: 'qrail: quantum circuits as paid jobs', version }, { instructions: INSTRUCTIONS, capabilities: { tools: {} } });
  registerJobsTools(server, jobs);
  return server;
}
