import type { CustomersService } from '../../modules/customers/index.js';
import { AccountLayout, Field, Notice } from '../components/account-layout.js';
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

function AddressFormCard({ shop, data }: { shop: ShopContext; data: AddressesPageData }) {
  const form = data.form ?? {};
  return (
    <form
      className="card"
      method="post"
      action={shopHref(shop, '/account/addresses')}
      aria-labelledby="address-add"
    >
      <h2 id="address-add">Add an address</h2>
      {data.error ? <Notice kind="error">{data.error}</Notice> : null}
      <Field
        id="address-line1"
        label="Address"
        name="line1"
        defaultValue={form.line1}
        required
        maxLength={255}
        autoComplete="address-line1"
      />
      <Field
        id="address-line2"
        label="Apartment, suite, etc. (optional)"
        name="line2"
        defaultValue={form.line2}
        maxLength={255}
        autoComplete="address-line2"
      />
      <div className="form-row">
        <Field
          id="address-city"
          label="City"
          name="city"
          defaultValue={form.city}
          required
          maxLength={100}
          autoComplete="address-level2"
        />
        <Field
          id="address-postal-code"
          label="Postal code"
          name="postalCode"
          defaultValue={form.postalCode}
          required
          maxLength={20}
          autoComplete="postal-code"
        />
      </div>
      <div className="form-row">
        <Field
          id="address-region"
          label="Region (optional)"
          name="region"
          defaultValue={form.region}
          maxLength={100}
          autoComplete="address-level1"
        />
        <Field
          id="address-country"
          label="Country code"
          name="country"
          defaultValue={form.country}
          required
          minLength={2}
          maxLength={2}
          pattern="[A-Za-z]{2}"
          autoComplete="country"
          aria-describedby="address-country-hint"
          hint={<span id="address-country-hint">2 letters, like US, GB or FR</span>}
        />
      </div>
      <Field
        id="address-phone"
        label="Phone (optional)"
        name="phone"
        defaultValue={form.phone}
        type="tel"
        maxLength={40}
        autoComplete="tel"
      />
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
      <button type="submit">Save address</button>
    </form>
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
