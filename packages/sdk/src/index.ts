/**
 * @emporium/sdk: a typed client for Emporium's merchant, storefront, customer and mobile APIs,
 * generated from the server's OpenAPI document, with webhook verification and pagination helpers.
 */
export {
  createEmporiumClient,
  type DataMethod,
  type EmporiumClient,
  type EmporiumOptions,
  type ListItem,
  type ListPage,
  type ListPath,
  type Ok,
  type Paths,
} from './client.js';
export { EmporiumError, type EmporiumErrorDetail } from './errors.js';
export type { RetryOptions } from './retry.js';
export type { components, operations, paths } from './schema.js';
export {
  type VerifiedWebhook,
  type VerifyWebhookOptions,
  verifyWebhook,
  type WebhookHeaders,
  WebhookVerificationError,
} from './webhooks.js';
