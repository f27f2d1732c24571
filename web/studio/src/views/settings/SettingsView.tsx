import { AccountSection } from './AccountSection';
import { DefaultsSection } from './DefaultsSection';
import { KeysSection } from './KeysSection';
import { LanesSection } from './LanesSection';
import { PromptBuilderSection } from '../prompt-builder/PromptBuilderSection';
import { QuotaSection } from './QuotaSection';
import { StorageSection } from './StorageSection';

import { SectionLinks } from './SectionLinks';

/** One component per section; a section arrives with the routes it needs. */
const SECTIONS = [LanesSection, KeysSection, QuotaSection, AccountSection, DefaultsSection, PromptBuilderSection, StorageSection];

export function SettingsView() {
  return (
    <div className="settings">
      <h1>Settings</h1>
      <SectionLinks />
      {SECTIONS.map((Section, index) => (
        <Section key={index} />
      ))}
    </div>
  );
}
