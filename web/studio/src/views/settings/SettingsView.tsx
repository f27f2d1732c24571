import { DefaultsSection } from './DefaultsSection';
import { LanesSection } from './LanesSection';
import { NotInThisBuildSection } from './NotInThisBuildSection';
import { StorageSection } from './StorageSection';

/** One component per section; a section arrives with the routes it needs (keys, quota, accounts, prompt builder). */
const SECTIONS = [LanesSection, DefaultsSection, StorageSection, NotInThisBuildSection];

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
