import type { ReactNode } from 'react';

/**
 * A box with the image's shape reserved before any pixel arrives, so nothing
 * moves when a partial or the final image loads.
 */
export function ImageFrame({
  width,
  height,
  children,
  className,
}: {
  width?: number;
  height?: number;
  children?: ReactNode;
  className?: string;
}) {
  const ratio = width && height ? `${width} / ${height}` : '1 / 1';
  return (
    <div className={`image-frame ${className ?? ''}`} style={{ aspectRatio: ratio }}>
      {children}
    </div>
  );
}
