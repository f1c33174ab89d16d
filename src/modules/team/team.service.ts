import { createHash, randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { Db } from '../../platform/db/database.js';
import { inTransaction } from '../../platform/db/transaction.js';
import type { RequestContext } from '../../platform/http/context.js';
import { conflict, invalidRequest, notFound, rateLimited } from '../../platform/http/errors.js';
import type { RateLimitStore } from '../../platform/http/rate-limit.js';
import { isScope, SCOPES, type Scope } from '../../platform/http/scopes.js';
import { isUuid, newId } from '../../platform/ids.js';
import type { Mailer } from '../../platform/mail.js';
import { type AdminService, effectiveScopes } from '../admin/index.js';
import { recordAudit } from '../audit/index.js';
import { hashPassword, type MemberRole, type StoresService } from '../stores/index.js';
import { invitationMail } from './invitation-mail.js';
import * as repo from './team.repository.js';

export const INVITATION_TTL_DAYS = 7;
/** Invitations a store may send per hour: enough for a team, too few to use the store as a spam relay. */
export const INVITATIONS_PER_HOUR = 50;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

const hashToken = (token: string) => createHash('sha256').update(token).digest();
const normalise = (email: string) => email.trim().toLowerCase();

export interface TeamDeps {
  db: Db;
  stores: StoresService;
  admin: AdminService;
  mailer: Mailer;
  rateLimits: RateLimitStore;
  publicUrl: string;
  logger: Logger;
}

/** A member as the API shows it: an owner's permissions are every scope. */
function memberView(row: NonNullable<Awaited<ReturnType<typeof repo.findMember>>>) {
  return { ...row, permissions: effectiveScopes(row.role, row.permissions) };
}
export type Member = ReturnType<typeof memberView>;

/** Scopes as stored for a staff member: known ones only, each once, in the catalogue's order. */
function permissionsOf(input: readonly string[]): Scope[] {
  const unknown = input.filter((p) => !isScope(p));
  if (unknown.length) throw invalidRequest(`permissions: unknown scope ${unknown[0]}`);
  return SCOPES.filter((scope) => input.includes(scope));
}

/**
 * A store's team (contract §14): members (owner or staff with permissions), invitations by e-mail
 * (a 256-bit token, only its SHA-256 kept, single use, 7 days) and their acceptance, which signs in.
 */
export function createTeamService(deps: TeamDeps) {
  const { db, stores } = deps;

  return {
    async listMembers(storeId: string): Promise<Member[]> {
      return (await repo.listMembers(db, storeId)).map(memberView);
    },

    async updatePermissions(storeId: string, userId: string, permissions: string[]): Promise<Member> {
      const member = isUuid(userId) ? await repo.findMember(db, storeId, userId) : undefined;
      if (!member) throw notFound('member');
      if (member.role === 'owner')
        throw conflict('an owner has every permission; only staff have permissions');
      await repo.setPermissions(db, storeId, userId, permissionsOf(permissions));
      const updated = await repo.findMember(db, storeId, userId);
      if (!updated) throw notFound('member');
      return memberView(updated);
    },

    /** Ends the membership and the member's sessions on this store at once; the last owner stays. */
    async removeMember(storeId: string, userId: string) {
      if (!isUuid(userId)) throw notFound('member');
      await inTransaction(db, async (tx) => {
        const owners = await repo.lockOwners(tx, storeId);
        if (owners.length === 1 && owners[0] === userId)
          throw conflict("the store's last owner cannot be removed");
        if (!(await repo.deleteMember(tx, storeId, userId))) throw notFound('member');
      });
    },

    async invite(ctx: RequestContext, input: { email: string; permissions: string[] }) {
      const email = normalise(input.email);
      if (!EMAIL.test(email)) throw invalidRequest('email is not a valid e-mail address');
      const permissions = permissionsOf(input.permissions);
      const { count, retryInMs } = await deps.rateLimits.hitSliding(
        `staff-invitations:${ctx.storeId}`,
        3_600_000,
        INVITATIONS_PER_HOUR,
      );
      if (count > INVITATIONS_PER_HOUR) throw rateLimited(Math.max(1, Math.ceil(retryInMs / 1000)));
      if (await repo.isMemberByEmail(db, ctx.storeId, email))
        throw conflict('this e-mail already belongs to a member of the store');
      const store = await stores.getStore(ctx.storeId);
      const token = randomBytes(32).toString('base64url');
      const invitation = await repo.insertInvitation(db, {
        id: newId(),
        store_id: ctx.storeId,
        email,
        permissions,
        token_hash: hashToken(token),
        invited_by: ctx.actor.kind === 'admin_user' ? ctx.actor.id : null,
        expires_at: new Date(Date.now() + INVITATION_TTL_DAYS * 86_400_000),
      });
      const mail = invitationMail({
        storeName: store.name,
        inviter: ctx.actorName ?? store.name,
        link: `${deps.publicUrl}/admin/invite/${token}`,
        days: INVITATION_TTL_DAYS,
      });
      // After answering: the mail server's speed or failure does not hold the request.
      void deps.mailer
        .send({ to: email, ...mail, fromName: store.name, replyTo: store.contact_email })
        .catch((error) =>
          deps.logger.error({ err: error, storeId: store.id }, 'could not send an invitation'),
        );
      return invitation;
    },

    listInvitations: (storeId: string) => repo.listPendingInvitations(db, storeId),

    async revokeInvitation(storeId: string, id: string) {
      if (!isUuid(id) || !(await repo.revokeInvitation(db, storeId, id))) throw notFound('invitation');
    },

    /** What the accept page shows: the store, the address, and whether to ask for a name or sign in. */
    async describeInvitation(token: string) {
      const invitation = await findPending(token);
      const store = await stores.getStore(invitation.store_id);
      const existing = await repo.findUserByEmail(db, invitation.email);
      return {
        store: { name: store.name, slug: store.slug },
        email: invitation.email,
        existing_user: !!existing,
      };
    },

    /**
     * Accepts once: a new user is created with this name and password; an existing one (same e-mail)
     * proves it with the password (counted by the sign-in limits). Then a session on the store.
     */
    async accept(token: string, input: { name: string; password: string }, ip: string) {
      const found = await findPending(token);
      const existing = await repo.findUserByEmail(db, found.email);
      if (existing) await deps.admin.authenticate(found.email, input.password, ip);
      else if (input.password.length < 8) throw invalidRequest('password must be at least 8 characters');
      const name = input.name.trim();
      if (!existing && !name) throw invalidRequest('name must not be empty');
      const passwordHash = existing ? undefined : await hashPassword(input.password);
      const { userId, storeId } = await inTransaction(db, async (tx) => {
        const invitation = await repo.findPendingInvitation(tx, hashToken(token), { lock: true });
        if (!invitation) throw notFound('invitation');
        const user =
          (await repo.findUserByEmail(tx, invitation.email)) ??
          (await repo.insertUser(tx, {
            id: newId(),
            email: invitation.email,
            name,
            password_hash: passwordHash ?? (await hashPassword(input.password)),
          }));
        const added = await repo.addMember(tx, {
          store_id: invitation.store_id,
          admin_user_id: user.id,
          role: 'staff',
          permissions: invitation.permissions,
        });
        if (!added) throw conflict('you are already a member of this store');
        await repo.markAccepted(tx, invitation.id, user.id);
        await recordAudit(tx, {
          storeId: invitation.store_id,
          actor: { type: 'user', id: user.id, name: user.name ?? user.email },
          action: 'staff.join',
          resourceType: 'staff',
          resourceId: user.id,
          ip,
        });
        return { userId: user.id, storeId: invitation.store_id };
      });
      const store = await stores.getStore(storeId);
      return deps.admin.openSession(userId, store.slug);
    },

    /**
     * The CLI's `user create`: a new user with this role in the store; an e-mail that already has a
     * user joins the store with that role (its password unchanged); one already a member is 409.
     */
    async createMember(input: {
      email: string;
      password: string;
      storeSlug: string;
      role: MemberRole;
      permissions: string[] | 'all';
    }) {
      const email = normalise(input.email);
      if (!EMAIL.test(email)) throw invalidRequest('email is not a valid e-mail address');
      if (input.password.length < 8) throw invalidRequest('password must be at least 8 characters');
      const store = await stores.requireStoreBySlug(input.storeSlug);
      const permissions =
        input.role === 'owner' || input.permissions === 'all' ? [] : permissionsOf(input.permissions);
      const passwordHash = await hashPassword(input.password);
      return inTransaction(db, async (tx) => {
        const existing = await repo.findUserByEmail(tx, email);
        const user =
          existing ??
          (await repo.insertUser(tx, { id: newId(), email, name: null, password_hash: passwordHash }));
        const role = input.role;
        const granted =
          role === 'staff' && input.permissions === 'all' ? effectiveScopes('owner') : permissions;
        if (
          !(await repo.addMember(tx, {
            store_id: store.id,
            admin_user_id: user.id,
            role,
            permissions: granted,
          }))
        )
          throw conflict('a user with this e-mail already exists');
        return { id: user.id, email: user.email, store_id: store.id, role, existing: !!existing };
      });
    },
  };

  async function findPending(token: string) {
    const invitation =
      token.length <= 100 ? await repo.findPendingInvitation(db, hashToken(token)) : undefined;
    if (!invitation) throw notFound('invitation');
    return invitation;
  }
}

export type TeamService = ReturnType<typeof createTeamService>;
