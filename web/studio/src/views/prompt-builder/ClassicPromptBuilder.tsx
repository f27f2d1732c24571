import { useUi } from '../../store/ui';
import { PromptBuilderPanel } from './PromptBuilderPanel';

/** The prompt builder under Classic's composer, folded until opened: its suggestion replaces the composer's prompt. */
export function ClassicPromptBuilder() {
  const prompt = useUi((state) => state.composer.prompt);
  const updateComposer = useUi((state) => state.updateComposer);
  const showToast = useUi((state) => state.showToast);
  return (
    <details className="pb-fold">
      <summary>Prompt builder</summary>
      <PromptBuilderPanel
        currentPrompt={prompt}
        onApply={(suggested) => {
          updateComposer({ prompt: suggested });
          showToast('Prompt applied to the composer.');
        }}
      />
    </details>
  );
}
