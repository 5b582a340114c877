import type { App } from '../app-types.js';
import opsRoutes from './ops/ops-routes.js';
import backupRoutes from './ops/backup-routes.js';
import authRoutes from './auth/index.js';
import mediaRoutes from './media/media-routes.js';
import circuitsRoutes from './circuits/circuits-routes.js';
import jobsRoutes from './jobs/jobs-routes.js';
import credentialsRoutes from './credentials/credentials-routes.js';
import billingAreaRoutes from './billing/index.js';
import couplingRoutes from './coupling/coupling-routes.js';
import optimizeRoutes from './optimize/optimize-routes.js';
import executionRoutes from './execution/execution-routes.js';
import consoleRoutes from './console/console-routes.js';
import mcpRoutes from './mcp/mcp-routes.js';
import webhooksRoutes from './webhooks/webhooks-routes.js';
import orgRoutes from './orgs/org-routes.js';

/** Every route plugin of the service. Add one line per area. */
export const ROUTES: ReadonlyArray<(app: App) => Promise<void>> = [
  opsRoutes,
  backupRoutes,
  authRoutes,
  mediaRoutes,
  circuitsRoutes,
  jobsRoutes,
  credentialsRoutes,
  billingAreaRoutes,
  couplingRoutes,
  optimizeRoutes,
  executionRoutes,
  consoleRoutes,
  mcpRoutes,
  webhooksRoutes,
  orgRoutes,
];
