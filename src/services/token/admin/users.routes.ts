import { Type, type FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import {
  AdminErrorSchema,
  CredentialRepresentationSchema,
  UserRepresentationInputSchema,
  UserRepresentationSchema,
  UserSearchQuerySchema,
} from "../../../contracts/token.js";
import { requireRealm } from "../realms.js";
import type { TokenContext } from "../token-context.js";
import { createUser, deleteUser, logoutUser, resetPassword, toRepresentation, updateUser, userNotFound } from "./users.service.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const RealmParams = Type.Object({ realm: Type.String() });
const UserParams = Type.Object({ realm: Type.String(), id: Type.String() });
/** An empty body: Keycloak sends none with 201 and 204. */
const Empty = (description: string) => Type.Unsafe<undefined>({ description });
const NoContent = Empty("No Content");
const errors = { 400: AdminErrorSchema, 401: AdminErrorSchema, 403: AdminErrorSchema, 404: AdminErrorSchema, 409: AdminErrorSchema };

/** The app a Typebox plugin is given. */
type AdminApp = Parameters<FastifyPluginAsyncTypebox>[0];

/** Keycloak answers 404 for an id that is not a user's, whatever its shape. */
function userId(id: string): string {
  if (!UUID.test(id)) throw userNotFound();
  return id.toLowerCase();
}

/** `/users…`, the collection: create and search. */
function registerUserSearch(app: AdminApp, ctx: TokenContext, authOrigin: string): void {
  app.post(
    "/users",
    {
      schema: {
        summary: "Create a user",
        params: RealmParams,
        body: UserRepresentationInputSchema,
        response: { 201: Empty("Created; Location names the user"), ...errors },
      },
    },
    async (request, reply) => {
      const realm = requireRealm(ctx.realms, request.params.realm);
      const user = await createUser(ctx, realm.name, request.body);
      reply.header("location", `${authOrigin}/admin/realms/${realm.name}/users/${user.id}`);
      return reply.status(201).send();
    },
  );

  app.get(
    "/users",
    {
      schema: {
        summary: "Search users",
        params: RealmParams,
        querystring: UserSearchQuerySchema,
        response: { 200: Type.Array(UserRepresentationSchema), ...errors },
      },
    },
    async (request) => {
      const realm = requireRealm(ctx.realms, request.params.realm);
      const q = request.query;
      const users = await ctx.users.search(realm.name, {
        username: q.username,
        email: q.email,
        firstName: q.firstName,
        lastName: q.lastName,
        search: q.search,
        exact: q.exact,
        first: q.first ?? 0,
        max: Math.min(q.max ?? 100, 1000),
      });
      return users.map(toRepresentation);
    },
  );
}

/** `/users…`, one user: read, update, delete. */
function registerUserRecord(app: AdminApp, ctx: TokenContext): void {
  app.get(
    "/users/:id",
    { schema: { summary: "Get a user", params: UserParams, response: { 200: UserRepresentationSchema, ...errors } } },
    async (request) => {
      const realm = requireRealm(ctx.realms, request.params.realm);
      const user = await ctx.users.findById(realm.name, userId(request.params.id));
      if (!user) throw userNotFound();
      return toRepresentation(user);
    },
  );

  app.put(
    "/users/:id",
    {
      schema: {
        summary: "Update a user",
        params: UserParams,
        body: UserRepresentationInputSchema,
        response: { 204: NoContent, ...errors },
      },
    },
    async (request, reply) => {
      const realm = requireRealm(ctx.realms, request.params.realm);
      await updateUser(ctx, realm.name, userId(request.params.id), request.body);
      return reply.status(204).send();
    },
  );

  app.delete(
    "/users/:id",
    { schema: { summary: "Delete a user", params: UserParams, response: { 204: NoContent, ...errors } } },
    async (request, reply) => {
      const realm = requireRealm(ctx.realms, request.params.realm);
      await deleteUser(ctx, realm.name, userId(request.params.id));
      return reply.status(204).send();
    },
  );
}

/** `/users…`, what an admin does to a user: set the password, end the sessions. */
function registerUserActions(app: AdminApp, ctx: TokenContext): void {
  app.put(
    "/users/:id/reset-password",
    {
      schema: {
        summary: "Set a user's password",
        params: UserParams,
        body: CredentialRepresentationSchema,
        response: { 204: NoContent, ...errors },
      },
    },
    async (request, reply) => {
      const realm = requireRealm(ctx.realms, request.params.realm);
      await resetPassword(ctx, realm.name, userId(request.params.id), request.body);
      return reply.status(204).send();
    },
  );

  app.post(
    "/users/:id/logout",
    { schema: { summary: "End all of a user's sessions", params: UserParams, response: { 204: NoContent, ...errors } } },
    async (request, reply) => {
      const realm = requireRealm(ctx.realms, request.params.realm);
      await logoutUser(ctx, realm.name, userId(request.params.id));
      return reply.status(204).send();
    },
  );
}

/** `/admin/realms/{realm}/users…`: the part of Keycloak's admin REST API that user tooling uses. */
export function usersRoutes(ctx: TokenContext, authOrigin: string): FastifyPluginAsyncTypebox {
  return async (app) => {
    registerUserSearch(app, ctx, authOrigin);
    registerUserRecord(app, ctx);
    registerUserActions(app, ctx);
  };
}
