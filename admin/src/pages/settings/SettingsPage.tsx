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
      <StripeSettings />
      <AppConfigEditor />
      <ApiKeys />
    </div>
  );
}
