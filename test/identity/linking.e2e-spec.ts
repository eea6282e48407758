import { eachDatabase } from '../../src/core/testing/harness';
import { ident, sql } from '../../src/database/sql';
import { createUser } from '../support/users';
import { intake, intakeHelpers, Obj, testClock } from './intake-support';
import { person, role } from './messages';

const clock = testClock();

/** What a source is told when the person matches a user it may not link: the same words whoever the user is. */
const REFUSED = {
  detail:
    'This person matches an existing user that this source may not link, so nothing was changed. An administrator can link the user to the ' +
    'source (/api/identity/user-links/) or let the source link existing users (its link_existing and link_match).',
};
const SENDER = { detail: 'This person matches the account sending this message; an identity source may not manage the access of the account that writes to it.' };
const LINKS = '/api/identity/user-links/';

eachDatabase(
  'identity intake: which users a source may link',
  (t) => {
    const { source, put, user, groupsOf, history, rows, historyEntries } = intakeHelpers(t);
    /** A service account that writes (and reads) one source's identities, and nothing else. */
    const serviceAccount = (name: string, slug: string) =>
      t().userWith(name, [{ types: ['identity.externalidentity'], actions: ['view', 'change'], constraints: { source__slug: slug } }]);
    const userId = async (username: string) => (await t().get(`/api/users/users/?username=${username}`).expect(200)).body.results[0].id as string;
    /** Everything a refused message could have touched: the users and their groups, and every identity table. */
    const snapshot = async () => ({
      users: await t().db.query(sql`SELECT * FROM ${ident('users_user')} ORDER BY ${ident('id')}`),
      memberships: await t().db.query(sql`SELECT * FROM ${ident('users_user_groups')} ORDER BY ${ident('user_id')}, ${ident('group_id')}`),
      groups: await rows('users_group'),
      identities: await t().db.query(sql`SELECT * FROM ${ident('identity_externalidentity')} ORDER BY ${ident('id')}`),
      roles: await rows('identity_externalidentityrole'),
      keys: await rows('identity_externalidentity_key'),
      history: await historyEntries(),
      links: await t().db.query(sql`SELECT * FROM ${ident('identity_userlink')} ORDER BY ${ident('id')}`),
    });
    /** A 409 that names none of the users it refused. */
    const refused = async (res: { body: Obj }, expected: Obj, ...names: string[]) => {
      expect(res.body).toEqual(expected);
      for (const n of names) expect(JSON.stringify(res.body).toLowerCase()).not.toContain(n.toLowerCase());
    };

    it('links by default only the users it created: any other user matching by username or email is a 409 that names nobody and changes nothing', async () => {
      await source('def', { username_identifier_type: 'employeeNumber', affiliation_groups: { staff: 'Def Staff' } });
      const kept = (await t().post('/api/users/groups/', { name: 'Kept' }).expect(201)).body.id;
      const mary = await createUser(t(), 'E777', { email: 'old@example.org', first_name: 'Old', groups: [kept] });
      await createUser(t(), 'shared-person', { email: 'Shared@Example.org' });
      const before = await snapshot();
      await refused(await put('def', 'l1', person({ given: 'Mary', employeeNumber: 'E777' })).expect(409), REFUSED, 'E777', 'old@example.org');
      await refused(await put('def', 'l2', person({ given: 'Shared', email: 'shared@example.org' })).expect(409), REFUSED, 'shared-person');
      await refused(await put('def', 'l3', person({ given: 'Mary', employeeNumber: 'E778', email: 'OLD@example.org' })).expect(409), REFUSED, 'E777');
      expect(await snapshot()).toEqual(before);
      expect(await groupsOf(mary)).toEqual(['Kept']);
      // The users it creates are its own: a later identity of the same person links the same user.
      const made = await put('def', 'n1', person({ given: 'Nora', employeeNumber: 'N1' })).expect(201);
      const again = await put('def', 'n2', person({ given: 'Nora', employeeNumber: 'N1' })).expect(201);
      expect(again.body.user.id).toBe(made.body.user.id);
      expect((await history(again.body.id)).results[0].changes.user).toMatchObject({ action: 'linked', username: 'N1' });
      const links = (await t().get(`${LINKS}?user=${made.body.user.id}`).expect(200)).body.results;
      expect(links.map((l: Obj) => [l.source.id, l.origin.value])).toEqual([[(await t().get('/api/identity/sources/?slug=def').expect(200)).body.results[0].id, 'created']]);
    });

    it('links existing users under link_existing only as link_match says, and never a superuser, staff user, service account, another source\'s user or the sender', async () => {
      const src = await source('match', { username_identifier_type: 'employeeNumber' });
      const svc = await serviceAccount('svc-match', 'match');
      // Only an administrator turns it on: the service account may not change its source.
      await t().patch(`/api/identity/sources/${src.id}/`, { link_existing: true }, svc).expect(403);
      const on = await t().patch(`/api/identity/sources/${src.id}/`, { link_existing: true }).expect(200);
      expect(on.body).toMatchObject({ link_existing: true, link_match: { value: 'username_and_email' } });
      const both = await createUser(t(), 'M1', { email: 'm1@example.org' });
      const nameOnly = await createUser(t(), 'M2', { email: 'elsewhere@example.org' });
      const emailOnly = await createUser(t(), 'm3-old', { email: 'm3@example.org' });
      const p = (n: number) => person({ given: `Em${n}`, employeeNumber: `M${n}`, email: `m${n}@example.org` });
      const linked = await put('match', 'p1', p(1), svc).expect(201);
      expect(linked.body.user.id).toBe(both);
      expect((await history(linked.body.id)).results[0].changes.user).toMatchObject({ action: 'linked', id: both, username: 'M1' });
      expect((await t().get(`${LINKS}?user=${both}`).expect(200)).body.results.map((l: Obj) => l.origin.value)).toEqual(['matched']);
      const unmatched = await snapshot();
      await refused(await put('match', 'p2', p(2), svc).expect(409), REFUSED, 'M2');
      await refused(await put('match', 'p3', p(3), svc).expect(409), REFUSED, 'm3-old');
      expect(await snapshot()).toEqual(unmatched);
      await t().patch(`/api/identity/sources/${src.id}/`, { link_match: 'username' }).expect(200);
      expect((await put('match', 'p2', p(2), svc).expect(201)).body.user.id).toBe(nameOnly);
      await put('match', 'p3', p(3), svc).expect(409);
      await t().patch(`/api/identity/sources/${src.id}/`, { link_match: 'email' }).expect(200);
      expect((await put('match', 'p3', p(3), svc).expect(201)).body.user.id).toBe(emailOnly);

      // The widest rule still leaves alone whoever must not be managed by a source.
      await t().patch(`/api/identity/sources/${src.id}/`, { link_match: 'username_or_email' }).expect(200);
      const kept = (await t().post('/api/users/groups/', { name: 'Match Kept' }).expect(201)).body.id;
      await createUser(t(), 'S1', { is_staff: true, email: 's1@example.org', groups: [kept] });
      await createUser(t(), 'R1', { is_superuser: true, email: 'r1@example.org', groups: [kept] });
      await serviceAccount('svc-other', 'other');
      await t().patch(`/api/users/users/${await userId('svc-other')}/`, { email: 'svc-other@example.org', groups: [kept] }).expect(200);
      await source('other', { username_identifier_type: 'employeeNumber' });
      await put('other', 'o1', person({ given: 'Olga', employeeNumber: 'O1', email: 'o1@example.org' })).expect(201);
      const before = await snapshot();
      for (const name of ['S1', 'R1', 'svc-other', 'O1']) {
        const res = await put('match', `x-${name}`, person({ given: 'Who', employeeNumber: name, email: `${name.toLowerCase()}@example.org` }), svc);
        expect([name, res.status]).toEqual([name, 409]);
        await refused(res, REFUSED, name, `${name}@example.org`);
        // By email alone too.
        const byEmail = await put('match', `y-${name}`, person({ given: 'Who', employeeNumber: `new-${name}`, email: `${name.toLowerCase()}@example.org` }), svc);
        expect([name, byEmail.status, byEmail.body]).toEqual([name, 409, REFUSED]);
      }
      // The account sending the message is never handed to its source.
      await t().patch(`/api/users/users/${await userId('svc-match')}/`, { email: 'svc-match@example.org' }).expect(200);
      const after = await snapshot();
      await refused(await put('match', 'self', person({ given: 'Self', employeeNumber: 'svc-match' }), svc).expect(409), SENDER, 'svc-match');
      await refused(await put('match', 'self', person({ given: 'Self', employeeNumber: 'Z9', email: 'svc-match@example.org' }), svc).expect(409), SENDER, 'svc-match');
      expect(await snapshot()).toEqual(after);
      expect({ ...after, users: [] }).toEqual({ ...before, users: [] });
      expect(await groupsOf(await userId('R1'))).toEqual(['Match Kept']);
    });

    it('links a user an administrator linked to the source, even a staff user; the service account cannot link one itself', async () => {
      const src = await source('adm', { username_identifier_type: 'employeeNumber', affiliation_groups: { staff: 'Adm Staff' } });
      const svc = await serviceAccount('svc-adm', 'adm');
      const staffer = await createUser(t(), 'A1', { is_staff: true, email: 'a1@example.org' });
      const delegate = await t().userWith('link-admin', [
        { types: ['identity.userlink'], actions: ['view', 'add', 'delete'] },
        { types: ['identity.identitysource', 'users.user'], actions: ['view'] },
      ]);
      await put('adm', 'a1', person({ given: 'Ann', employeeNumber: 'A1' }), svc).expect(409);
      const before = await snapshot();
      await t().post(LINKS, { source: src.id, user: staffer }, svc).expect(403);
      await t().patch(`/api/identity/sources/${src.id}/`, { link_existing: true, link_match: 'username' }, svc).expect(403);
      // A delegated administrator may link only a user they may change.
      expect((await t().post(LINKS, { source: src.id, user: staffer }, delegate).expect(403)).body).toEqual({ detail: 'You do not have permission to perform this action.' });
      expect(await snapshot()).toEqual(before);
      const link = await t().post(LINKS, { source: src.id, user: staffer }).expect(201);
      expect(link.body).toMatchObject({ source: { id: src.id }, user: { id: staffer }, origin: { value: 'admin', label: 'Linked by an administrator' } });
      await t().post(LINKS, { source: src.id, user: staffer }).expect(400);
      const moved = await t().patch(`${LINKS}${link.body.id}/`, { user: await createUser(t(), 'A2') }).expect(400);
      expect(moved.body).toEqual({ user: ['The user of a link cannot be changed; delete the link and create another.'] });
      const res = await put('adm', 'a1', person({ given: 'Ann', employeeNumber: 'A1' }), svc).expect(201);
      expect(res.body.user.id).toBe(staffer);
      expect(await user(staffer)).toMatchObject({ is_staff: true, first_name: 'Ann', is_active: true });
      expect(await groupsOf(staffer)).toEqual(['Adm Staff']);
      // The link an identity uses stays while it does; an unused one goes.
      expect((await t().del(`${LINKS}${link.body.id}/`).expect(409)).body).toEqual({ detail: 'Unable to delete the link: 1 identity of its source gives this user access.' });
      const spare = await t().post(LINKS, { source: src.id, user: await userId('A2') }).expect(201);
      await t().del(`${LINKS}${spare.body.id}/`, undefined, delegate).expect(204);
    });

    it('never links a superuser, not even one an administrator tries to link, and says so naming nobody', async () => {
      const src = await source('su', { username_identifier_type: 'employeeNumber', link_existing: true, link_match: 'username_or_email' });
      const root = await createUser(t(), 'R9', { is_superuser: true, email: 'r9@example.org' });
      const res = await t().post(LINKS, { source: src.id, user: root }).expect(400);
      expect(res.body).toEqual({ user: ["A superuser cannot be linked to an identity source: no source may manage a superuser's access."] });
      const before = await snapshot();
      await refused(await put('su', 's1', person({ given: 'Root', employeeNumber: 'R9' })).expect(409), REFUSED, 'R9', 'r9@example.org');
      await refused(await put('su', 's2', person({ given: 'Root', email: 'R9@example.org' })).expect(409), REFUSED, 'R9');
      // The admin (a superuser) sending it changes nothing either.
      await refused(await put('su', 's3', person({ given: 'Admin', employeeNumber: 'admin' })).expect(409), SENDER, 'admin');
      expect(await snapshot()).toEqual(before);
    });

    it('answers a hidden identity as a missing one (404) on GET, PUT, DELETE and history, even when its person would be refused', async () => {
      await source('mine');
      await source('theirs', { username_identifier_type: 'employeeNumber' });
      const theirs = (await put('theirs', 't1', person({ given: 'Theo', roles: [role('r', 'staff')] })).expect(201)).body;
      await createUser(t(), 'R5', { is_superuser: true, email: 'r5@example.org' });
      const svc = await serviceAccount('svc-mine', 'mine');
      await put('mine', 'm1', person({ given: 'Mina' }), svc).expect(201);
      const before = await snapshot();
      const notFound = { detail: 'No ExternalIdentity matches the given query.' };
      for (const sorId of ['t1', 'nobody']) {
        expect([sorId, (await t().get(intake('theirs', sorId), svc)).body]).toEqual([sorId, notFound]);
        for (const msg of [person({ given: 'Eve' }), person({ given: 'Root', employeeNumber: 'R5' })]) {
          const res = await put('theirs', sorId, msg, svc);
          expect([sorId, res.status, res.body]).toEqual([sorId, 404, notFound]);
        }
        const del = await t().del(intake('theirs', sorId), undefined, svc);
        expect([sorId, del.status, del.body]).toEqual([sorId, 404, notFound]);
      }
      for (const id of [theirs.id, '00000000-0000-4000-8000-000000000000']) {
        const res = await t().get(`/api/identity/external-identities/${id}/history/`, svc);
        expect([res.status, res.body]).toEqual([404, notFound]);
        await t().get(`/api/identity/external-identities/${id}/`, svc).expect(404);
      }
      expect(await snapshot()).toEqual(before);
    });

    it('refuses an unusable username (400), and keeps an identity without a user when the message gives none', async () => {
      await source('plain', { username_identifier_type: 'employeeNumber' });
      const before = await snapshot();
      const bad = await put('plain', 'l4', person({ given: 'Space', employeeNumber: 'has space' })).expect(400);
      expect(bad.body).toEqual({ 'sorAttributes.identifiers[0].identifier': ['"has space" cannot be a username: at most 150 letters, digits and @/./+/-/_ characters.'] });
      expect(await snapshot()).toEqual(before);
      const none = await put('plain', 'l5', { sorAttributes: { identifiers: [{ identifier: 'x-1', type: 'other' }], roles: [role('r', 'staff')] } }).expect(201);
      expect(none.body.user).toBeNull();
      expect(none.body.effective_status.value).toBe('active');
    });
  },
  { clock: clock.now, env: { CREDENTIAL_CACHE: 'false' } },
);
