import type { ErrorCode } from '../../common/errors.js';
import type { ProviderLaneId } from '../catalog/lanes.js';

// The spec gives some lanes their own codes for requests they cannot take.
// Every other lane answers the generic code. (Candidates for the catalog.)

/** A mask sent to a lane that cannot mask. */
export const MASK_UNSUPPORTED_CODES: Partial<Record<ProviderLaneId, ErrorCode>> = {
  alpha: 'ALPHA_MASK_UNSUPPORTED',
  'alpha-api': 'ALPHA_MASK_UNSUPPORTED',
  epsilon: 'EPSILON_MASK_UNSUPPORTED',
};

/** An edit sent to a lane that cannot edit. */
export const EDIT_UNSUPPORTED_CODES: Partial<Record<ProviderLaneId, ErrorCode>> = {
  epsilon: 'EPSILON_EDIT_UNSUPPORTED',
};

/** More input images than the lane's maxReferences. */
export const TOO_MANY_REFERENCES_CODES: Partial<Record<ProviderLaneId, ErrorCode>> = {
  alpha: 'ALPHA_REF_TOO_MANY',
  'alpha-api': 'ALPHA_REF_TOO_MANY',
  cligen: 'CLIGEN_REF_TOO_MANY',
  epsilon: 'EPSILON_REFERENCES_UNSUPPORTED',
};
