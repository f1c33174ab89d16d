// Stripe's Payment Element on the pay page of an order (pages/confirmation.tsx, PayPage): the order
// is placed and its PaymentIntent created on the server; here the buyer enters the card in Stripe's
// own frame and Stripe confirms it, then sends the buyer to the order's confirmation page.

interface StripeError {
  message?: string;
}
interface StripeElement {
  mount(selector: string): void;
  on(event: 'ready', handler: () => void): void;
}
interface StripeElements {
  create(type: 'payment'): StripeElement;
}
interface StripeClient {
  elements(options: { clientSecret: string; appearance?: object }): StripeElements;
  confirmPayment(options: {
    elements: StripeElements;
    confirmParams: { return_url: string };
  }): Promise<{ error?: StripeError }>;
}
type StripeFactory = (publishableKey: string) => StripeClient;

const STRIPE_JS = 'https://js.stripe.com/v3';

function loadStripe(): Promise<StripeFactory> {
  const existing = (window as unknown as { Stripe?: StripeFactory }).Stripe;
  if (existing) return Promise.resolve(existing);
  return new Promise((resolve, reject) => {
    const script = document.createElement('script');
    script.src = STRIPE_JS;
    script.onload = () => {
      const loaded = (window as unknown as { Stripe?: StripeFactory }).Stripe;
      if (loaded) resolve(loaded);
      else reject(new Error('Stripe.js did not load'));
    };
    script.onerror = () => reject(new Error('Stripe.js could not be loaded'));
    document.head.append(script);
  });
}

async function mount(form: HTMLFormElement) {
  const { publishableKey, clientSecret, returnUrl } = form.dataset;
  const message = document.getElementById('payment-message');
  const button = form.querySelector<HTMLButtonElement>('button[type="submit"]');
  const say = (text: string) => {
    if (message) message.textContent = text;
  };
  if (!publishableKey || !clientSecret || !returnUrl || !button) return;
  try {
    const stripe = (await loadStripe())(publishableKey);
    const accent = getComputedStyle(document.documentElement).getPropertyValue('--shop-accent').trim();
    const elements = stripe.elements({
      clientSecret,
      appearance: { theme: 'stripe', variables: accent ? { colorPrimary: accent } : {} },
    });
    const element = elements.create('payment');
    element.on('ready', () => {
      form.querySelector('.pay__loading')?.remove();
      button.disabled = false;
    });
    element.mount('#payment-element');
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      button.disabled = true;
      say('');
      // On success Stripe navigates to return_url; we only get here when it did not.
      const { error } = await stripe.confirmPayment({ elements, confirmParams: { return_url: returnUrl } });
      say(error?.message ?? 'The payment did not go through. Check your card and try again.');
      button.disabled = false;
    });
  } catch {
    say('The secure card form could not be loaded. Check your connection and reload this page.');
  }
}

const form = document.getElementById('stripe-payment');
if (form instanceof HTMLFormElement) void mount(form);
