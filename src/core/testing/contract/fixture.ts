import type { TestApp } from '../harness';

type Obj = Record<string, any>;

/**
 * What the contract needs to know of one model: a few lines of data, keyed by object type in
 * the fixtures map (test/fixtures). Every registered model must have one: the contract fails
 * otherwise, so a model added later is covered without new test code.
 */
export interface Fixture {
  /** Creates prerequisite objects (names unique to this fixture: every model shares the server); the result is passed to the builders below. */
  setup?: (t: TestApp) => Promise<Obj>;
  /** A valid, unique create payload (n distinguishes objects; vary optional values with n so filters have something to tell apart). */
  make: (ctx: Obj, n: number) => Obj;
  /** A PATCH payload (applied to one object). */
  update: (ctx: Obj) => Obj;
  /**
   * Read-only resources (`readOnly: true`): the API refuses every write with 405, so fixtures
   * come from `seed` (through whatever endpoint or service fills the model), and the write
   * tests become one test of the refusals. `make` is then only used as a body to refuse.
   */
  readOnly?: boolean;
  /**
   * Creates the n-th fixture and returns its representation: read-only resources, and models
   * whose API creates none (`writes` without `create`: jobs), whose contract then changes and
   * deletes seeded objects.
   */
  seed?: (t: TestApp, ctx: Obj, n: number) => Promise<Obj>;
  /** A PATCH payload applied to several objects at once (no unique fields). */
  bulkUpdate?: (ctx: Obj) => Obj;
  /** A create payload that fails validation. */
  invalid?: (ctx: Obj) => Obj;
  /** Expected OPTIONS choices of choice fields. */
  choices?: Record<string, (string | number)[]>;
  /** Field for the ?sort= tests (default name; null to skip). */
  sortField?: string | null;
  /** Model has notes_url / custom_fields. */
  notes?: boolean;
  customFields?: boolean;
  /** Tree model: depth 2 walks parent.parent. */
  tree?: boolean;
  /** Make a three-level chain for tree tests: returns payloads root, child, grandchild. */
  chain?: (ctx: Obj) => Obj[];
  /** false: the objects hold what a CSV cannot carry (an uploaded file's bytes), so the export, delete and re-import round trip does not apply. */
  csvRoundTrip?: boolean;
  /** Keys returned differently from how they are written (e.g. password is write-only). */
  writeOnly?: string[];
  /** Keys shown only in the response that creates the object (a token's key). */
  createOnly?: string[];
  /** Every user sees only their own objects (tokens): the constrained-scope tests don't apply. */
  ownedOnly?: boolean;
  /** Models a reader must also be able to view to see the fixtures (a note's assigned object). */
  viewAlso?: string[];
  /** Never readable without a permission, even under EXEMPT_VIEW_PERMISSIONS. */
  neverExempt?: boolean;
  /**
   * Models a client cannot list for another user (tokens): makes one object that depends on the
   * object `targetId` through `field`, and returns its id, for the cascade test.
   */
  dependentOn?: (t: TestApp, field: string, targetId: string) => Promise<string>;
}

/** Fixtures by object type (`app_label.model`). */
export type Fixtures = Record<string, Fixture>;
