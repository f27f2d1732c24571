// The contract types of graph sessions and nodes (src/studio/api), as types only: no zod reaches the bundle.
export type {
  GraphEdge,
  GraphNode,
  GraphSaved,
  GraphSnapshot,
  NodeGenerateRequest,
  NodeGenerationResult,
  SessionDeleted,
  SessionSummary,
  SessionsPage,
  VersionedGraph,
} from '../../../../../src/studio/api/index.js';
