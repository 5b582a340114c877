import type { App } from '../../app-types.js';
import billingRoutes from './billing-routes.js';
import processorRoutes from './processor-routes.js';
import sandboxRoutes from './sandbox-routes.js';
import operatorRoutes from './operator-routes.js';

/** Every billing route plugin, each in its own encapsulated scope. */
export default async function billingAreaRoutes(app: App): Promise<void> {
  await app.register(billingRoutes);
  await app.register(processorRoutes);
  await app.register(sandboxRoutes);
  await app.register(operatorRoutes);
}
