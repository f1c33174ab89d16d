import { api } from '../../api/client';
import type { OnboardingChecklist, OnboardingItemKey } from '../../api/types';
import { Card } from '../../components/ui';
import { useResource } from '../../components/useResource';
import { Link } from '../../lib/router';
import { shopAddress } from '../../lib/shop-address';
import { useSession } from '../../session';

const STEPS: Record<OnboardingItemKey, { label: string; to: string; hint: string }> = {
  add_product: { label: 'Add a product', to: '/products/new', hint: 'Name, price and a photo.' },
  set_up_shipping: {
    label: 'Set up shipping',
    to: '/settings/shipping',
    hint: 'Where you ship to, and at what rates.',
  },
  connect_payments: { label: 'Connect payments', to: '/settings', hint: 'Your Stripe keys, under Settings.' },
  view_shop: { label: 'View your shop', to: '', hint: 'See it as your customers will.' },
};

/**
 * The new store's checklist, first on the overview until every item is done. Items tick
 * themselves off from the store's data; "View your shop" is marked by opening the shop from here.
 */
export function OnboardingCard() {
  const { store } = useSession();
  const checklist = useResource(
    (signal) => api.get<{ data: OnboardingChecklist }>('/api/admin/onboarding', undefined, signal),
    [],
  );
  const data = checklist.data?.data;
  if (!data || data.done) return null;
  const remaining = data.items.filter((i) => !i.done).length;

  const markViewed = () => {
    void api.post('/api/admin/onboarding/view-shop').then(checklist.reload, () => undefined);
  };

  return (
    <Card title="Get your store ready" className="onboarding">
      <p className="hint">
        {remaining} of {data.items.length} steps left.
      </p>
      <ol className="checklist">
        {data.items.map((item) => {
          const step = STEPS[item.key];
          return (
            <li
              key={item.key}
              className={item.done ? 'checklist-item done' : 'checklist-item'}
              data-testid={`onboarding-${item.key}`}
            >
              <span className="check" aria-hidden="true">
                {item.done ? '✓' : ''}
              </span>
              <span className="checklist-text">
                {item.key === 'view_shop' ? (
                  <a href={shopAddress(store)} target="_blank" rel="noopener" onClick={markViewed}>
                    {step.label}
                    <span className="visually-hidden"> (opens in a new tab)</span>
                  </a>
                ) : (
                  <Link to={step.to}>{step.label}</Link>
                )}
                <span className="visually-hidden">{item.done ? ' (done)' : ' (to do)'}</span>
                <span className="hint">{step.hint}</span>
              </span>
            </li>
          );
        })}
      </ol>
    </Card>
  );
}
