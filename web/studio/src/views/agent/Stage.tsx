import { useQueryClient } from '@tanstack/react-query';
import type { AgentSessionBody, AssetRecord } from '../../api/contract';
import { toErrorPayload } from '../../api/http';
import { useAssetDetail } from '../../api/queries';
import { withToken } from '../../api/token';
import { ImageFrame } from '../../components/ImageFrame';
import { errorHelp } from '../../components/errorHelp';
import { useUi } from '../../store/ui';
import { agentKeys, updateAgentSession } from './agentApi';

/** A filmstrip thumbnail: from the records the session already has, else read from history. */
function Thumb({ filename, known }: { filename: string; known?: AssetRecord }) {
  const detail = useAssetDetail(known ? undefined : filename);
  const asset = known ?? detail.data;
  return asset ? (
    <img src={withToken(asset.thumbnailUrl)} alt={asset.prompt} width={72} height={72} loading="lazy" />
  ) : (
    <span className="thumb-missing">{detail.error ? 'gone' : '…'}</span>
  );
}

/** The current image large, and every image of the session below it: a click makes one current. */
export function Stage({ session }: { session: AgentSessionBody }) {
  const queryClient = useQueryClient();
  const known = new Map<string, AssetRecord>();
  for (const turn of session.turns) for (const image of turn.images) known.set(image.filename, image);
  if (session.currentImage) known.set(session.currentImage.filename, session.currentImage);
  const current = session.currentImage;

  const makeCurrent = async (filename: string) => {
    try {
      await updateAgentSession(session.id, { currentImage: { filename } });
      void queryClient.invalidateQueries({ queryKey: agentKeys.session(session.id) });
    } catch (error) {
      const payload = toErrorPayload(error);
      useUi.getState().showToast(`Could not make it current: ${errorHelp(payload).meaning} (${payload.code})`);
    }
  };

  return (
    <section className="agent-stage" aria-label="Current image">
      {current ? (
        <ImageFrame width={current.width} height={current.height} className="stage-frame">
          <img
            src={withToken(current.url)}
            alt={current.prompt}
            data-filename={current.filename}
            width={current.width}
            height={current.height}
          />
        </ImageFrame>
      ) : (
        <p className="stage-empty hint">No current image yet: describe one below.</p>
      )}
      {session.images.length > 0 && (
        <ol className="filmstrip" aria-label="Images of this session">
          {session.images.map((filename) => (
            <li key={filename}>
              <button
                type="button"
                data-filename={filename}
                aria-pressed={filename === current?.filename}
                title="Make current"
                onClick={() => void makeCurrent(filename)}
              >
                <Thumb filename={filename} known={known.get(filename)} />
              </button>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
