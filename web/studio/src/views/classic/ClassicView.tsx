import { useCapabilities, useDefaults, useProviders } from '../../api/queries';
import { ErrorNotice } from '../../components/ErrorNotice';
import { toErrorPayload } from '../../api/http';
import { JobList } from './JobList';
import { PromptComposer } from './PromptComposer';
import { ClassicPromptBuilder } from '../prompt-builder/ClassicPromptBuilder';

/** Classic: the composer and the jobs it (and anyone else) started. */
export function ClassicView() {
  const capabilities = useCapabilities();
  const providers = useProviders();
  const defaults = useDefaults();
  return (
    <div className="classic">
      <h1 className="visually-hidden">Classic</h1>
      <div className="classic-composer">
        {capabilities.error && <ErrorNotice error={toErrorPayload(capabilities.error)} />}
        {capabilities.data ? (
          <PromptComposer capabilities={capabilities.data} providers={providers.data} defaults={defaults.data} />
        ) : (
          !capabilities.error && <p className="hint">Loading the catalog…</p>
        )}
      </div>
      <div className="classic-side">
        <ClassicPromptBuilder />
        <JobList />
      </div>
    </div>
  );
}
