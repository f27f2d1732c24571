import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import type { AssetRecord, GenerationResult } from '../../api/contract';
import { toErrorPayload } from '../../api/http';
import { useAssetDetail, useJobRecord } from '../../api/queries';
import { withToken } from '../../api/token';
import { ErrorNotice } from '../../components/ErrorNotice';
import { ImageFrame } from '../../components/ImageFrame';
import { formatBytes, formatMs, formatTime } from '../../components/format';
import { navigate } from '../../router';
import { useUi } from '../../store/ui';
import { VideoActions, VideoPlayer } from '../video/VideoActions';
import { confirmPermanentDelete, copyPrompt, deleteAsset, editAsset, remixAsset, addAsReference } from './assetActions';

const show = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

/** Usage and time of the job that made the asset, while the studio keeps its record. */
function CostAndTime({ asset }: { asset: AssetRecord }) {
  const job = useJobRecord(asset.requestId);
  if (job.isPending) return <dd>…</dd>;
  const result = job.data?.result as GenerationResult | { results: unknown } | null | undefined;
  if (!result) return <dd className="muted">Not known any more: the studio keeps job records for a while only.</dd>;
  const single = 'timings' in result ? result : undefined;
  if (!single) return <dd className="muted">Not reported per image for a batch.</dd>;
  const tokens = single.usage?.totalTokens;
  return (
    <dd>
      {formatMs(single.timings.totalMs)} in total ({formatMs(single.timings.upstreamMs)} upstream)
      {tokens !== undefined ? `; ${tokens} tokens (${single.usage?.inputTokens ?? '?'} in, ${single.usage?.outputTokens ?? '?'} out)` : ''}
    </dd>
  );
}

/** The selected image: large, with how it was made and what can be done with it. */
export function AssetDetail({
  filename,
  opening = 0,
  onClose,
  onEnlarge,
}: {
  filename: string;
  /** Changes each time an image is opened, the one shown included. */ opening?: number;
  onClose(): void;
  /** Opens the image full size (the lightbox). */ onEnlarge?(): void;
}) {
  const queryClient = useQueryClient();
  const detail = useAssetDetail(filename);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [filename, opening]);
  const asset = detail.data;
  const metadata = asset?.embeddedMetadata;
  const settings = metadata?.settings ?? asset?.settings ?? {};
  const isVideo = asset?.format === 'mp4';
  return (
    <aside
      className="detail"
      aria-labelledby="detail-title"
      onKeyDown={(event) => {
        if (event.key === 'Escape') onClose();
      }}
    >
      <div className="detail-head">
        <h2 id="detail-title" ref={heading} tabIndex={-1}>
          Details
        </h2>
        <button type="button" className="ghost" onClick={onClose} aria-label="Close details">
          ×
        </button>
      </div>
      {detail.error && <ErrorNotice error={toErrorPayload(detail.error)} />}
      {asset && (
        <>
          {isVideo ? (
            <VideoPlayer asset={asset} />
          ) : (
            <ImageFrame width={asset.width} height={asset.height}>
              <img src={withToken(asset.url)} alt={asset.prompt} width={asset.width} height={asset.height} />
            </ImageFrame>
          )}
          <div className="detail-actions">
            <a className="button" href={withToken(asset.url)} download={asset.filename}>
              Download
            </a>
            {onEnlarge && !isVideo && (
              <button type="button" onClick={onEnlarge}>
                Full size
              </button>
            )}
            <button type="button" onClick={() => void copyPrompt(asset.prompt)}>
              Copy prompt
            </button>
            {!isVideo && (
              <>
                <button type="button" onClick={() => remixAsset(asset)}>
                  Remix
                </button>
                {/* An SVG (a trace) can be neither a reference nor edited: those actions are not offered. */}
                {asset.format !== 'svg' && (
                  <>
                    <button type="button" onClick={() => addAsReference(asset)}>
                      Use as reference
                    </button>
                    <button type="button" onClick={() => editAsset(asset)}>
                      Edit
                    </button>
                  </>
                )}
              </>
            )}
            <button type="button" className="danger" onClick={() => void deleteAsset(queryClient, asset)}>
              Delete
            </button>
            <button type="button" className="danger" onClick={() => confirmPermanentDelete(queryClient, asset)}>
              Delete permanently
            </button>
          </div>
          {isVideo && (
            <VideoActions
              asset={asset}
              onStarted={() =>
                useUi.getState().showToast('Video job started.', { label: 'Follow it in Video', run: () => navigate('/video') })
              }
            />
          )}
          <dl className="facts">
            <dt>Prompt</dt>
            <dd className="detail-prompt">{metadata?.prompt ?? asset.prompt}</dd>
            {(metadata?.revisedPrompt ?? asset.revisedPrompt) && (
              <>
                <dt>Revised prompt</dt>
                <dd>{metadata?.revisedPrompt ?? asset.revisedPrompt}</dd>
              </>
            )}
            <dt>Lane</dt>
            <dd>{metadata?.lane ?? asset.provider}</dd>
            <dt>Model</dt>
            <dd>{metadata?.model ?? asset.model}</dd>
            <dt>Made</dt>
            <dd>
              {formatTime(metadata?.createdAt ?? asset.createdAt)} · {asset.kind}
              {asset.sessionTitle ? ` · session ${asset.sessionTitle}` : ''}
            </dd>
            {asset.derivedFrom && (
              <>
                <dt>Made from</dt>
                <dd>
                  <button
                    type="button"
                    className="link-button"
                    data-derived-from={asset.derivedFrom}
                    onClick={() => useUi.getState().selectAsset(asset.derivedFrom ?? undefined)}
                  >
                    {asset.kind === 'edit' ? 'Edited from' : 'Source'}: {asset.derivedFrom}
                  </button>
                </dd>
              </>
            )}
            <dt>{isVideo ? 'Video' : 'Image'}</dt>
            <dd>
              {asset.width}×{asset.height} {asset.format.toUpperCase()}, {formatBytes(asset.bytes)}
              {asset.video ? `, ${asset.video.durationSeconds.toFixed(1)} s at ${asset.video.fps} fps` : ''}
            </dd>
            <dt>Cost and time</dt>
            <CostAndTime asset={asset} />
            <dt>Settings</dt>
            <dd>
              <table className="settings-table">
                <tbody>
                  {Object.entries(settings).map(([key, value]) => (
                    <tr key={key}>
                      <th scope="row">{key}</th>
                      <td>{show(value)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </dd>
          </dl>
        </>
      )}
    </aside>
  );
}
