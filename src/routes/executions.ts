import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { flowInScope } from "../services/callers/access";
import { type Guard, accessFrom, can, guard, outOfScope, pathId } from "../auth/guard";
import type { AppEnv } from "../env";
import { DeletedResponse, IdParam } from "../schemas/common";
import { Execution, ExecutionDeleteMany, ExecutionList, ExecutionListQuery, ExecutionUpdate } from "../schemas/executions";
import * as service from "../services/executions";
import { SSE_HEADERS } from "../stream/sse";
import { createRouter, jsonBody, jsonResponse, protectedRoute, publicRoute } from "./router";

const tags = ["executions"];

/** The chatflows a key is limited to (null: all); executions of other agentflows are out of its reach. */
const scopeOf = async (c: Context<AppEnv>) => {
  const { chatflows } = await accessFrom(c);
  return chatflows ? [...chatflows] : null;
};

/** Flowise's executions:<action>, and for a key limited to chatflows, an execution of one of them. */
const onExecution = (action: "view" | "update" | "delete"): Guard[] => [
  can(`executions:${action}`),
  guard("an execution of a chatflow within the key's limit", async (c, access) => {
    const id = pathId(c, "id");
    const flowId = id && access.chatflows ? await service.agentflowOf(c.var.services, id) : undefined;
    if (flowId && !flowInScope(access, flowId)) throw outOfScope();
  }),
];

export const executionRoutes = createRouter()
  .openapi(
    protectedRoute({
      method: "get",
      path: "/",
      permission: can("executions:view"),
      tags,
      summary: "List agentflow executions (most recently updated first; page 1, 12 per page by default)",
      request: { query: ExecutionListQuery },
      responses: jsonResponse(ExecutionList),
    }),
    async (c) => c.json(await service.listExecutions(c.var.services, c.req.valid("query"), await scopeOf(c)), 200),
  )
  .openapi(
    protectedRoute({
      method: "get",
      path: "/{id}",
      permission: onExecution("view"),
      tags,
      summary: "Get an execution",
      request: { params: IdParam },
      responses: jsonResponse(Execution),
    }),
    async (c) => c.json(await service.getExecution(c.var.services, c.req.valid("param").id), 200),
  )
  .openapi(
    protectedRoute({
      method: "get",
      path: "/{id}/events",
      permission: onExecution("view"),
      tags,
      summary:
        "An asynchronous run's frames (Flowise's stream format with id: lines): from its start (or after " +
        "Last-Event-ID), then live until end",
      request: { params: IdParam },
      responses: { 200: { description: "text/event-stream frames", content: { "text/event-stream": { schema: z.string() } } } },
    }),
    async (c) => {
      const id = c.req.valid("param").id;
      const body = await service.executionEvents(c.var.services, id, c.req.header("Last-Event-ID"), c.req.raw.signal);
      return c.body(body, 200, SSE_HEADERS);
    },
  )
  .openapi(
    protectedRoute({
      method: "put",
      path: "/{id}",
      permission: onExecution("update"),
      tags,
      summary: "Share or unshare an execution (isPublic is the only field that changes)",
      request: { params: IdParam, body: jsonBody(ExecutionUpdate) },
      responses: jsonResponse(Execution),
    }),
    async (c) => c.json(await service.updateExecution(c.var.services, c.req.valid("param").id, c.req.valid("json")), 200),
  )
  .openapi(
    protectedRoute({
      method: "delete",
      path: "/{id}",
      permission: onExecution("delete"),
      tags,
      summary: "Delete an execution",
      request: { params: IdParam },
      responses: jsonResponse(DeletedResponse),
    }),
    async (c) => c.json(await service.deleteExecution(c.var.services, c.req.valid("param").id), 200),
  )
  .openapi(
    protectedRoute({
      method: "delete",
      path: "/",
      permission: can("executions:delete"),
      tags,
      summary: "Delete several executions (those within the key's chatflow limit)",
      request: { body: jsonBody(ExecutionDeleteMany) },
      responses: jsonResponse(DeletedResponse),
    }),
    async (c) => c.json(await service.deleteExecutions(c.var.services, c.req.valid("json").executionIds, await scopeOf(c)), 200),
  );

export const publicExecutionRoutes = createRouter().openapi(
  publicRoute({
    method: "get",
    path: "/{id}",
    tags,
    summary: "A shared execution, without a token (404 unless isPublic); credential ids removed",
    request: { params: IdParam },
    responses: jsonResponse(Execution),
  }),
  async (c) => c.json(await service.getPublicExecution(c.var.services, c.req.valid("param").id), 200),
);
