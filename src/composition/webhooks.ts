/**
 * The webhooks part of the composition root: settings, the store, the system DNS resolver and the
 * node:http(s) sender, the service behind /v1/webhooks and the delivery worker (worker role).
 */
import type { Config } from '../config/config.js';
import type { Database } from '../store/db.js';
import type { Meter } from '../telemetry/meter.js';
import { pgWebhookStore } from '../store/webhooks/webhooks-store.js';
import { SERVICE_VERSION } from '../version.js';
import { nodeDnsResolver } from '../webhooks/adapters/node-dns-resolver.js';
import { classifyAddress } from '../webhooks/adapters/special-purpose-addresses.js';
import { nodeHttpSender } from '../webhooks/adapters/node-http-sender.js';
import { WebhookDeliveryWorker } from '../webhooks/delivery-worker.js';
import { webhookSettings } from '../webhooks/settings.js';
import { WebhookService } from '../webhooks/webhook-service.js';

export interface WebhookServices {
  readonly webhooks: WebhookService;
  readonly webhookWorker: WebhookDeliveryWorker;
}

export function createWebhookServices(config: Config, db: Database, onError: (e: unknown) => void, meter?: Meter): WebhookServices {
  const settings = webhookSettings(config.env);
  const store = pgWebhookStore(db);
  return {
    webhooks: new WebhookService(store, nodeDnsResolver, settings, classifyAddress),
    webhookWorker: new WebhookDeliveryWorker({
      store,
      resolver: nodeDnsResolver,
      classify: classifyAddress,
      sender: nodeHttpSender,
      settings,
      userAgent: `qrail-webhooks/${SERVICE_VERSION}`,
      onError,
      ...(meter === undefined ? {} : { meter }),
    }),
  };
}
