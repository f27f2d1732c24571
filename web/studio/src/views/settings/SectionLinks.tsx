import { useEffect, useState } from 'react';
import { useUi } from '../../store/ui';
import './section-links.css';

/**
 * Links to each section of Settings, read from the page (each section's heading), so a section added
 * later is listed without a change here. A `#section` in the URL scrolls to it.
 */
export function SectionLinks() {
  const [sections, setSections] = useState<Array<{ id: string; title: string }>>([]);
  const hash = useUi((state) => state.hash);

  useEffect(() => {
    const read = () =>
      Array.from(document.querySelectorAll<HTMLElement>('.settings > .settings-section')).flatMap((section) => {
        const heading = section.querySelector('h2');
        if (!heading) return [];
        // A section without an id gets one from its heading, so it can be linked.
        if (!section.id)
          section.id = (heading.id || heading.textContent || '')
            .replace(/-title$/, '')
            .toLowerCase()
            .replace(/[^a-z0-9]+/g, '-');
        return [{ id: section.id, title: heading.textContent ?? section.id }];
      });
    setSections(read());
    const observer = new MutationObserver(() =>
      setSections((current) => {
        const next = read();
        return next.length === current.length &&
          next.every((entry, index) => entry.id === current[index]?.id && entry.title === current[index]?.title)
          ? current
          : next;
      }),
    );
    const root = document.querySelector('.settings');
    if (root) observer.observe(root, { childList: true });
    return () => observer.disconnect();
  }, []);

  useEffect(() => {
    const id = decodeURIComponent(hash.replace(/^#/, ''));
    if (id && sections.length > 0) document.getElementById(id)?.scrollIntoView({ block: 'start' });
  }, [hash, sections.length]);

  if (sections.length === 0) return null;
  return (
    <nav className="section-links" aria-label="Sections of Settings">
      {sections.map((section) => (
        <a
          key={section.id}
          href={`#${section.id}`}
          onClick={() => useUi.getState().setLocation(window.location.pathname, `#${section.id}`)}
        >
          {section.title}
        </a>
      ))}
    </nav>
  );
}
