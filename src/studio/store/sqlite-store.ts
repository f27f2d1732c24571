import { stat } from 'node:fs/promises';
import {
  changeAgentSession,
  countAgentTurns,
  deleteAgentSession,
  deleteQueuedAgentTurn,
  findAgentSession,
  findAgentTurn,
  insertAgentSession,
  insertAgentTurn,
  listAgentSessions,
  listAgentTurns,
  updateAgentTurn,
} from './agent.js';
import {
  assetsWithPendingThumbnails,
  deletedSince,
  findAsset,
  findLiveByThumbnail,
  insertAsset,
  isNameTaken,
  listGroupItems,
  listLiveAssets,
  listSessionGroups,
  markAssetBroken,
  markAssetDeleted,
  markAssetRestored,
  removeAsset,
  removeTombstone,
  searchExpression,
  searchLiveAssets,
  setThumbnailState,
  tombstonesDeletedBefore,
} from './assets.js';
import type { StudioDatabase } from './database.js';
import { eventLogOf } from './events.js';
import { SqliteFlowWorkflowRepository } from './flow-workflows.js';
import { findNode, recordNode } from './nodes.js';
import type { AgentRepository, AssetRepository, GraphSessionRepository, NodeRepository, StudioStore } from './repositories.js';
import { findSession, insertSession, listLiveSessions, markSessionDeleted, renameSession, replaceGraph } from './sessions.js';

// The repositories (store/repositories.ts) over the studio's SQLite file. Each
// call is one better-sqlite3 statement or one immediate transaction, answered
// as a settled promise: callers are written for a store that answers late.

export function sqliteAssetRepository(db: StudioDatabase): AssetRepository {
  return {
    insert: async (row) => insertAsset(db, row),
    find: async (filename) => findAsset(db, filename),
    takenNames: async (candidates) => candidates.map(({ filename, thumbnail }) => isNameTaken(db, filename, thumbnail)),
    findLiveByThumbnail: async (thumbnail) => findLiveByThumbnail(db, thumbnail),
    listLive: async (options) => listLiveAssets(db, options),
    listGroupItems: async (options) => listGroupItems(db, options),
    async search({ text, limit, afterId, filter }) {
      const match = searchExpression(text);
      return match === undefined ? [] : searchLiveAssets(db, { match, limit, afterId, filter });
    },
    listSessionGroups: async (options) => listSessionGroups(db, options),
    markDeleted: async (filename, deletedAt) => markAssetDeleted(db, filename, deletedAt),
    markRestored: async (filename) => markAssetRestored(db, filename),
    markBroken: async (filename, deletedAt) => markAssetBroken(db, filename, deletedAt),
    setThumbnailState: async (filename, state) => setThumbnailState(db, filename, state),
    pendingThumbnails: async () => assetsWithPendingThumbnails(db),
    deletedSince: async (since, limit) => deletedSince(db, since, limit),
    tombstonesDeletedBefore: async (cutoff) => tombstonesDeletedBefore(db, cutoff),
    removeTombstone: async (filename) => removeTombstone(db, filename),
    remove: async (filename) => removeAsset(db, filename),
  };
}

export function sqliteGraphSessionRepository(db: StudioDatabase): GraphSessionRepository {
  return {
    insert: async (row) => insertSession(db, row),
    find: async (id) => findSession(db, id),
    listLive: async (options) => listLiveSessions(db, options),
    rename: async (id, title, at) => renameSession(db, id, title, at),
    markDeleted: async (id, emptyGraph, at) => markSessionDeleted(db, id, emptyGraph, at),
    replaceGraph: async (id, next, at) => replaceGraph(db, id, next, at),
  };
}

export function sqliteNodeRepository(db: StudioDatabase): NodeRepository {
  return {
    find: async (id) => findNode(db, id),
    record: async (row, graph) => recordNode(db, row, graph),
  };
}

export function sqliteAgentRepository(db: StudioDatabase): AgentRepository {
  return {
    insertSession: async (row) => insertAgentSession(db, row),
    findSession: async (id) => findAgentSession(db, id),
    listSessions: async (limit) => listAgentSessions(db, limit),
    deleteSession: async (id) => deleteAgentSession(db, id),
    changeSession: async (id, change) => changeAgentSession(db, id, change),
    insertTurn: async (row) => insertAgentTurn(db, row),
    deleteQueuedTurn: async (id, jobId) => deleteQueuedAgentTurn(db, id, jobId),
    findTurn: async (id) => findAgentTurn(db, id),
    listTurns: async (sessionId) => listAgentTurns(db, sessionId),
    updateTurn: async (id, fields, fromStates) => updateAgentTurn(db, id, fields, fromStates),
    countTurns: async (sessionId) => countAgentTurns(db, sessionId),
  };
}

const fileSize = (path: string): Promise<number> =>
  stat(path).then(
    (found) => found.size,
    () => 0,
  );

/** Every repository over one open database (`file`: where it is, for its size). */
export function sqliteStudioStore(db: StudioDatabase, file: string): StudioStore {
  return {
    assets: sqliteAssetRepository(db),
    graphSessions: sqliteGraphSessionRepository(db),
    nodes: sqliteNodeRepository(db),
    agent: sqliteAgentRepository(db),
    flowWorkflows: new SqliteFlowWorkflowRepository(db),
    events: eventLogOf(db),
    // The file and its write-ahead log (what a checkpoint has not folded in yet).
    size: async () => (await Promise.all([fileSize(file), fileSize(`${file}-wal`)])).reduce((sum, bytes) => sum + bytes, 0),
  };
}
