import { useMutation } from '@tanstack/react-query';
import { api, toErrorPayload } from '../../api/http';
import { useStorage } from '../../api/queries';
import { ErrorNotice } from '../../components/ErrorNotice';
import { formatBytes, plural } from '../../components/format';

/** Where the studio keeps its files, how much they take, and a way to open the images' folder. */
export function StorageSection() {
  const storage = useStorage();
  const open = useMutation({
    mutationFn: () => api<{ opened: boolean; path: string }>('/api/storage/open-generated-dir', { method: 'POST' }),
  });
  const status = storage.data;
  const used = status ? status.disk.totalBytes - status.disk.freeBytes : 0;
  return (
    <section className="settings-section" aria-labelledby="storage-title">
      <h2 id="storage-title">Storage</h2>
      {storage.error && <ErrorNotice error={toErrorPayload(storage.error)} />}
      {status && (
        <>
          <dl className="facts">
            <dt>Images</dt>
            <dd>
              {plural(status.generated.files, 'file')}, {formatBytes(status.generated.bytes)} (thumbnails{' '}
              {formatBytes(status.thumbnails.bytes)})
            </dd>
            <dt>Folder</dt>
            <dd>
              <code>{status.paths.generated}</code>
            </dd>
            <dt>Database</dt>
            <dd>
              <code>{status.paths.database}</code>, {formatBytes(status.database.bytes)}
            </dd>
            <dt>Config</dt>
            <dd>
              <code>{status.paths.config}</code>
            </dd>
            <dt>Disk</dt>
            <dd>
              <meter id="disk-meter" min={0} max={status.disk.totalBytes} value={used} aria-label="Disk used" />{' '}
              {formatBytes(status.disk.freeBytes)} free of {formatBytes(status.disk.totalBytes)}
            </dd>
          </dl>
          <div className="form-actions">
            <button type="button" onClick={() => open.mutate()} disabled={open.isPending}>
              Open folder
            </button>
            {open.isSuccess && (
              <span className="hint" role="status">
                Opened {open.data.path}
              </span>
            )}
          </div>
          {open.error && <ErrorNotice error={toErrorPayload(open.error)} />}
        </>
      )}
    </section>
  );
}
