import { ImageFrame } from '../../components/ImageFrame';
import { withToken } from '../../api/token';
import type { LiveJob, LiveSlot } from '../../live/liveJobs';
import { navigate } from '../../router';
import { useUi } from '../../store/ui';
import { referenceFromAsset } from './references';
import { errorHelp } from '../../components/errorHelp';

const RASTER_FORMATS: readonly string[] = ['png', 'jpeg', 'webp'];

/** One output of a job: the final image, else the newest partial render, else a placeholder with the step. */
export function SlotView({ job, slot }: { job: LiveJob; slot: LiveSlot }) {
  const addReferences = useUi((state) => state.addReferences);
  const updateComposer = useUi((state) => state.updateComposer);
  const selectAsset = useUi((state) => state.selectAsset);
  const image = slot.image;
  const frame = image ? { width: image.width, height: image.height } : job.frame;
  const running = job.status === 'running' && !image && !slot.error;
  return (
    <figure
      className="slot"
      data-slot={slot.slot}
      data-state={image ? 'final' : slot.error ? 'error' : slot.partial ? 'partial' : 'waiting'}
    >
      <ImageFrame width={frame?.width} height={frame?.height}>
        {image ? (
          <img
            src={withToken(image.url)}
            alt={image.revisedPrompt ?? image.prompt}
            data-final="true"
            width={image.width}
            height={image.height}
          />
        ) : slot.partial ? (
          <>
            <img src={slot.partial} alt="Partial render" data-partial={slot.partialIndex} />
            <span className="badge draft">Draft {(slot.partialIndex ?? 0) + 1}</span>
          </>
        ) : slot.error ? (
          <div className="slot-error" role="alert">
            <strong>{errorHelp(slot.error).meaning}</strong> <code>{slot.error.code}</code>
            <p className="error-message">{slot.error.message}</p>
          </div>
        ) : running ? (
          <div className="placeholder" aria-hidden="true">
            <span className="spinner" />
          </div>
        ) : (
          <div className="placeholder" aria-hidden="true" />
        )}
      </ImageFrame>
      {(slot.provider || slot.model) && job.kind === 'multimode' && (
        <figcaption className="slot-caption">
          {slot.provider} · {slot.model}
        </figcaption>
      )}
      {image && (
        <div className="slot-actions">
          <button
            type="button"
            className="ghost"
            onClick={() => {
              selectAsset(image.filename);
              navigate('/history');
            }}
          >
            Details
          </button>
          {/* Only a raster image can be a reference or be edited (never an SVG or a video). */}
          {RASTER_FORMATS.includes(image.format) && (
            <>
              <button type="button" className="ghost" onClick={() => addReferences([referenceFromAsset(image)])}>
                Use as reference
              </button>
              <button type="button" className="ghost" onClick={() => updateComposer({ editImage: image, count: 1 })}>
                Edit
              </button>
            </>
          )}
        </div>
      )}
    </figure>
  );
}
