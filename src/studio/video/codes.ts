import { spec } from '../../common/error-spec.js';

// The codes of video (ours where the spec leaves them open: VIDEO_PROVIDER_UNSUPPORTED and
// CLIGEN_VIDEO_UNSUPPORTED are the spec's and live in the shared table and cligen's). Every
// refusal names its rule and the allowed values in `details`. Plain data: studio/errors.ts merges it.

export const VIDEO_CODES = {
  INVALID_VIDEO_MODEL: spec(
    400,
    'bad_request',
    "Not a video model of the lane (each lane's video models are listed by GET /api/capabilities).",
  ),
  VIDEO_DURATION_OUT_OF_RANGE: spec(400, 'bad_request', 'The duration is outside what this video mode and model allow.'),
  VIDEO_RESOLUTION_UNSUPPORTED: spec(400, 'bad_request', 'This resolution is not available for this video mode and model.'),
  VIDEO_ASPECT_RATIO_UNSUPPORTED: spec(
    400,
    'bad_request',
    'This aspect ratio is not one this video model takes (alpha: 16:9, 4:3, 3:2, 1:1, 2:3, 3:4, 9:16).',
  ),
  VIDEO_REFERENCES_TOO_MANY: spec(400, 'bad_request', 'More reference images than this video model takes (alpha: at most 14).'),
  VIDEO_MODE_UNSUPPORTED: spec(
    400,
    'bad_request',
    'This video model does not take this mode (its modes are listed in GET /api/capabilities).',
  ),
  VIDEO_OPERATION_UNSUPPORTED: spec(400, 'bad_request', 'This video model does not edit or extend videos.'),
  STORYBOARD_INVALID: spec(400, 'bad_request', 'The storyboard is not valid.'),
  VIDEO_SOURCE_NOT_FOUND: spec(404, 'bad_request', 'The video is not a generated MP4 in history.'),
  VIDEO_SOURCE_INVALID: spec(415, 'bad_request', 'The file is not an MP4 video the studio can read.'),
  VIDEO_SOURCE_TOO_LARGE: spec(413, 'bad_request', 'The video is larger than the studio takes.'),
  VIDEO_SOURCE_TOO_LONG: spec(400, 'bad_request', 'The source video is longer than this operation takes.'),
  VIDEO_URL_REFUSED: spec(400, 'bad_request', 'The video URL is refused: only https on a public address, redirects only to the same host.'),
  VIDEO_REMOTE_UNSUPPORTED: spec(400, 'bad_request', 'This operation takes generated MP4s from history only, not remote URLs.'),
  VIDEO_FRAME_OUT_OF_RANGE: spec(400, 'bad_request', 'The frame time is outside the video.'),
  VIDEO_GENERATION_FAILED: spec(502, 'upstream', 'The upstream video job failed.'),
  VIDEO_DOWNLOAD_FAILED: spec(502, 'upstream', 'The finished video could not be downloaded from the link its lane gave.'),
  VIDEO_EXPIRED: spec(502, 'upstream', 'The upstream video job or its result expired before it was downloaded.'),
  VIDEO_TIMEOUT: spec(504, 'timeout', 'The video job did not finish within its time budget.'),
  FFMPEG_UNAVAILABLE: spec(503, 'internal', 'ffmpeg/ffprobe are not installed.'),
  FFMPEG_FAILED: spec(500, 'internal', 'ffmpeg failed on this video.'),
  FFMPEG_TIMEOUT: spec(504, 'timeout', 'ffmpeg took longer than its time budget.'),
} as const;
