import type { CustomersService } from '../../modules/customers/index.js';
import { AccountForm, AccountLayout, type FieldSpec } from '../components/account-layout.js';
import { AddressLines } from '../components/order-summary.js';
import { type ShopContext, shopHref } from '../shop-context.js';

export type SavedAddress = Awaited<ReturnType<CustomersService['addresses']>>[number];

/** The add-address form's fields as typed (kept when the form is refused). */
export type AddressForm = Partial<
  Record<'line1' | 'line2' | 'city' | 'region' | 'postalCode' | 'country' | 'phone' | 'isDefault', string>
>;

export interface AddressesPageData {
  email: string;
  addresses: SavedAddress[];
  done?: string;
  error?: string;
  form?: AddressForm;
}

function AddressCard({ shop, address }: { shop: ShopContext; address: SavedAddress }) {
  const summary = `${address.line1}, ${address.city}`;
  return (
    <li className="card address-card">
      {address.is_default ? <span className="pill pill--good">Default</span> : null}
      <AddressLines address={{ ...address, postalCode: address.postal_code }} countryName={(code) => code} />
      <form method="post" action={shopHref(shop, `/account/addresses/${address.id}/delete`)}>
        <button type="submit" className="secondary danger">
          Delete<span className="visually-hidden"> {summary}</span>
        </button>
      </form>
    </li>
  );
}

const ADDRESS_FIELDS: (FieldSpec | FieldSpec[])[] = [
  { name: 'line1', label: 'Address', required: true, maxLength: 255, autoComplete: 'address-line1' },
  {
    name: 'line2',
    label: 'Apartment, suite, etc. (optional)',
    maxLength: 255,
    autoComplete: 'address-line2',
  },
  [
    { name: 'city', label: 'City', required: true, maxLength: 100, autoComplete: 'address-level2' },
    { name: 'postalCode', label: 'Postal code', required: true, maxLength: 20, autoComplete: 'postal-code' },
  ],
  [
    { name: 'region', label: 'Region (optional)', maxLength: 100, autoComplete: 'address-level1' },
    {
      name: 'country',
      label: 'Country code',
      required: true,
      minLength: 2,
      maxLength: 2,
      pattern: '[A-Za-z]{2}',
      autoComplete: 'country',
      'aria-describedby': 'address-country-hint',
      hint: <span id="address-country-hint">2 letters, like US, GB or FR</span>,
    },
  ],
  { name: 'phone', label: 'Phone (optional)', type: 'tel', maxLength: 40, autoComplete: 'tel' },
];

function AddressFormCard({ shop, data }: { shop: ShopContext; data: AddressesPageData }) {
  const form = data.form ?? {};
  return (
    <AccountForm
      shop={shop}
      action="/account/addresses"
      heading="Add an address"
      idPrefix="address"
      error={data.error}
      rows={ADDRESS_FIELDS}
      values={form}
      submit="Save address"
    >
      <div className="checkbox">
        <input
          id="address-default"
          type="checkbox"
          name="isDefault"
          value="on"
          defaultChecked={form.isDefault === 'on'}
        />
        <label htmlFor="address-default">Make this my default address</label>
      </div>
    </AccountForm>
  );
}

/** Saved addresses (the default first), each with a delete button, and a form to add one. */
export function AccountAddressesPage({ shop, data }: { shop: ShopContext; data: AddressesPageData }) {
  return (
    <AccountLayout
      shop={shop}
      section="addresses"
      title="Your addresses"
      description="Your saved addresses."
      email={data.email}
      done={data.done}
    >
      <div className="account-home">
        <section aria-labelledby="address-saved">
          <h2 id="address-saved">Saved addresses</h2>
          {data.addresses.length > 0 ? (
            <ul className="address-list">
              {data.addresses.map((address) => (
                <AddressCard key={address.id} shop={shop} address={address} />
              ))}
            </ul>
          ) : (
            <p className="card empty">No saved addresses yet. Add one to check out faster.</p>
          )}
        </section>
        <AddressFormCard shop={shop} data={data} />
      </div>
    </AccountLayout>
  );
}
