import { AccountSection } from './AccountSection';
import { DefaultsSection } from './DefaultsSection';
import { KeysSection } from './KeysSection';
import { LanesSection } from './LanesSection';
import { NotInThisBuildSection } from './NotInThisBuildSection';
import { QuotaSection } from './QuotaSection';
import { StorageSection } from './StorageSection';

/** One component per section; a section arrives with the routes it needs (the prompt builder's have not yet). */
const SECTIONS = [LanesSection, KeysSection, QuotaSection, AccountSection, DefaultsSection, StorageSection, NotInThisBuildSection];

export function SettingsView() {
  return (
    <div className="settings">
      <h1>Settings</h1>
      {SECTIONS.map((Section, index) => (
        <Section key={index} />
      ))}
    </div>
  );
}
