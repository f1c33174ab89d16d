import { Allowed } from '../../components/access';
import { PageHeader } from '../../components/ui';
import { ApiKeys } from './ApiKeys';
import { AppConfigEditor } from './AppConfigEditor';
import { SettingsTabs } from './SettingsTabs';
import { StoreProfile } from './StoreProfile';
import { StripeSettings } from './StripeSettings';

export function SettingsPage() {
  return (
    <div className="stack-lg">
      <PageHeader title="Settings" />
      <SettingsTabs />
      <StoreProfile />
      {/* Payments and API keys are the owner's alone (contract §14). */}
      <Allowed need={{ owner: true }}>
        <StripeSettings />
      </Allowed>
      <AppConfigEditor />
      <Allowed need={{ owner: true }}>
        <ApiKeys />
      </Allowed>
    </div>
  );
}
