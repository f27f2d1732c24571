import { z } from 'zod';
import { lazy } from '../../common/lazy.js';
import { generateRequest } from './requests.js';
import { assetRecord, generationResult } from './results.js';
import { graphId, graphPosition } from './sessions.js';

// Node generation: a root node (text-to-image, optionally with references) or
// a child edit of a parent node, whose image is the edit's input. A node is
// the stored record of one such generation; the graph a UI draws is the
// session's snapshot (api/sessions.ts), which names nodes by the same ids.

/** POST /api/node/generate: the generate body plus where the node goes. */
export const nodeGenerateRequest = lazy(() =>
  generateRequest.extend({
    /** The graph session the node belongs to; a child's session is its parent's (it may be repeated, not changed). */
    sessionId: graphId.optional(),
    /** Makes a child edit: the parent node's image is the edit input. */
    parentNodeId: graphId.optional(),
    /**
     * Also add the node (and its edge from the parent) to the session's graph,
     * bumping its version. Off by default: a UI that holds the graph adds the
     * node itself and saves with the version it has, so it never conflicts with
     * its own generation.
     */
    addToGraph: z.boolean().optional(),
    /** With addToGraph: where to put it (default: below its parent, or right of the rightmost node). */
    position: graphPosition.optional(),
  }),
);
export type NodeGenerateRequest = z.infer<typeof nodeGenerateRequest>;

/** Route parameters that name a node. */
export const nodeIdParam = lazy(() => z.object({ nodeId: graphId }));

/** What made a node: a text-to-image generation, or an edit of its parent's image. */
export const NODE_OPERATIONS = ['generate', 'edit'] as const;

/** The sync answer of POST /api/node/generate, and `done.result` of a node job. */
export const nodeGenerationResult = lazy(() =>
  generationResult.extend({
    nodeId: z.string(),
    parentNodeId: z.string().nullable(),
    sessionId: z.string().nullable(),
    /** The node's image (also `images[0]`). */
    asset: assetRecord,
    /** True when the node was added to the session's graph (addToGraph, and the session still there with room). */
    addedToGraph: z.boolean(),
    /** The graph's version after the node was added; null when it was not. */
    graphVersion: z.number().int().nullable(),
  }),
);
export type NodeGenerationResult = z.infer<typeof nodeGenerationResult>;

/** GET /api/node/:nodeId: the stored metadata of one node. */
export const nodeRecord = lazy(() =>
  z.object({
    nodeId: z.string(),
    operation: z.enum(NODE_OPERATIONS),
    parentNodeId: z.string().nullable(),
    /** The session it was made in; `deleted` once the session was deleted (the node and its image stay). */
    session: z.object({ id: z.string(), title: z.string(), deleted: z.boolean() }).nullable(),
    requestId: z.string(),
    prompt: z.string(),
    revisedPrompt: z.string().nullable(),
    provider: z.string(),
    model: z.string(),
    settings: z.record(z.string(), z.unknown()),
    /** Its image: `state` says whether history still has it (`deleted`: a restorable tombstone; `purged`: gone). */
    asset: z.object({ filename: z.string(), url: z.string(), thumbnailUrl: z.string(), state: z.enum(['live', 'deleted', 'purged']) }),
    createdAt: z.string(),
  }),
);
export type NodeRecord = z.infer<typeof nodeRecord>;
