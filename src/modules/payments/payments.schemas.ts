import { Type } from 'typebox';
import { Nullable, StringEnum } from '../../platform/http/envelopes.js';

/** One of PAYMENT_METHODS (providers.ts). */
export const PaymentMethodSchema = StringEnum(['manual', 'test_card', 'stripe']);

export const StripeKeysBody = Type.Object(
  {
    secret_key: Type.String({
      minLength: 1,
      maxLength: 255,
      description:
        'The secret key (`sk_test_…`/`sk_live_…`, or a restricted `rk_…` key). Stored encrypted, never returned.',
    }),
    publishable_key: Type.String({ minLength: 1, maxLength: 255, description: '`pk_test_…`/`pk_live_…`' }),
    webhook_secret: Type.String({
      minLength: 1,
      maxLength: 255,
      description:
        "The signing secret (`whsec_…`) of the webhook endpoint made in Stripe's dashboard for `webhook_url`. Stored encrypted, never returned.",
    }),
  },
  { additionalProperties: false },
);

export const StripeSettings = Type.Object(
  {
    enabled: Type.Boolean(),
    publishable_key: Nullable(Type.String()),
    secret_key_last4: Nullable(Type.String()),
    webhook_url: Type.String({ description: "The URL to give Stripe's dashboard as the webhook endpoint" }),
  },
  { $id: 'StripeSettings' },
);

export const StorefrontPayments = Type.Object({
  methods: Type.Array(PaymentMethodSchema),
  stripePublishableKey: Type.Optional(Type.String()),
});

export const PaymentSessionSchema = Type.Object({
  provider: Type.Literal('stripe'),
  paymentIntentId: Type.String(),
  clientSecret: Type.String({
    description: "Confirms the PaymentIntent in the browser (Stripe's Payment Element)",
  }),
  publishableKey: Type.String(),
  status: Type.Literal('requires_payment'),
});

export const StripeWebhookReceipt = Type.Object({
  received: Type.Boolean(),
  outcome: StringEnum(['processed', 'replayed', 'ignored']),
});
