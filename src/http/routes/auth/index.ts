import type { App } from '../../app-types.js';
import authRoutes from './auth-routes.js';
import accountRoutes from './account-routes.js';
import mfaRoutes from './mfa-routes.js';
import mailRoutes from './mail-routes.js';
import accountDataRoutes from '../account/account-data-routes.js';

/** Every auth route plugin: sign-in and the session, and the account operations of issue #26. */
export default async function authAreaRoutes(app: App): Promise<void> {
  await app.register(authRoutes);
  await app.register(accountRoutes);
  await app.register(mfaRoutes);
  await app.register(mailRoutes);
  await app.register(accountDataRoutes);
}
