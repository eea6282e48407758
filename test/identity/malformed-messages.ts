import { fullMessage } from './messages';

type Obj = Record<string, any>;

/** A valid message changed by `edit` (which gets a deep copy). */
function broken(edit: (m: Obj) => void): Obj {
  const m = fullMessage();
  edit(m);
  return m;
}

/**
 * Malformed external identity messages: each must be refused with a 400 naming `path`, and
 * nothing may be stored. Covers every rule of the validator, and bodies that are not messages.
 */
export const MALFORMED: { name: string; body: unknown; path: string }[] = [
  { name: 'a list instead of an object', body: [fullMessage()], path: 'non_field_errors' },
  { name: 'a string', body: 'hello', path: 'non_field_errors' },
  { name: 'an empty object', body: {}, path: 'sorAttributes' },
  { name: 'sorAttributes null', body: broken((m) => (m.sorAttributes = null)), path: 'sorAttributes' },
  { name: 'sorAttributes a list', body: broken((m) => (m.sorAttributes = [])), path: 'sorAttributes' },
  { name: 'meta a string', body: broken((m) => (m.meta = '1.0.0')), path: 'meta' },
  { name: 'meta without version', body: broken((m) => delete m.meta.version), path: 'meta.version' },
  { name: 'meta with another version', body: broken((m) => (m.meta.version = '2.0.0')), path: 'meta.version' },
  { name: 'meta without objectType', body: broken((m) => delete m.meta.objectType), path: 'meta.objectType' },
  { name: 'meta with another objectType', body: broken((m) => (m.meta.objectType = 'person')), path: 'meta.objectType' },
  { name: 'a relative returnUrl', body: broken((m) => (m.returnUrl = '/petitions/42')), path: 'returnUrl' },
  { name: 'an ftp returnUrl', body: broken((m) => (m.returnUrl = 'ftp://example.org/x')), path: 'returnUrl' },
  { name: 'a returnUrl with spaces', body: broken((m) => (m.returnUrl = 'https://example.org/a b')), path: 'returnUrl' },
  { name: 'sorAttributes.meta without id', body: broken((m) => (m.sorAttributes.meta = {})), path: 'sorAttributes.meta.id' },
  { name: 'no name and no identifier', body: broken((m) => ((m.sorAttributes.names = []), delete m.sorAttributes.identifiers)), path: 'sorAttributes' },
  { name: 'roles not a list', body: broken((m) => (m.sorAttributes.roles = { affiliation: 'staff' })), path: 'sorAttributes.roles' },
  { name: 'a role that is a string', body: broken((m) => m.sorAttributes.roles.push('staff')), path: 'sorAttributes.roles[1]' },
  { name: 'a role without affiliation', body: broken((m) => delete m.sorAttributes.roles[0].affiliation), path: 'sorAttributes.roles[0].affiliation' },
  { name: 'a role with a blank affiliation', body: broken((m) => (m.sorAttributes.roles[0].affiliation = '  ')), path: 'sorAttributes.roles[0].affiliation' },
  { name: 'a role without roleIdentifier', body: broken((m) => delete m.sorAttributes.roles[0].roleIdentifier), path: 'sorAttributes.roles[0].roleIdentifier' },
  { name: 'a roleIdentifier used twice', body: broken((m) => m.sorAttributes.roles.push({ ...m.sorAttributes.roles[0] })), path: 'sorAttributes.roles[1].roleIdentifier' },
  { name: 'a roleIdentifier that is a number', body: broken((m) => (m.sorAttributes.roles[0].roleIdentifier = 7)), path: 'sorAttributes.roles[0].roleIdentifier' },
  { name: 'a roleIdentifier with a trailing space', body: broken((m) => m.sorAttributes.roles.push({ ...m.sorAttributes.roles[0], roleIdentifier: `${m.sorAttributes.roles[0].roleIdentifier} ` })), path: 'sorAttributes.roles[1].roleIdentifier' },
  { name: 'a lone high surrogate in a name', body: broken((m) => (m.sorAttributes.names[0].given = 'Ada\ud800')), path: 'sorAttributes.names[0].given' },
  { name: 'a lone low surrogate in an unknown member', body: broken((m) => (m.sorAttributes.extra = '\udc00x')), path: 'sorAttributes.extra' },
  { name: 'a role without status', body: broken((m) => delete m.sorAttributes.roles[0].status), path: 'sorAttributes.roles[0].status' },
  { name: 'a role status outside the codes', body: broken((m) => (m.sorAttributes.roles[0].status = 'X')), path: 'sorAttributes.roles[0].status' },
  { name: 'a lower-case role status', body: broken((m) => (m.sorAttributes.roles[0].status = 'a')), path: 'sorAttributes.roles[0].status' },
  { name: 'a fractional rank', body: broken((m) => (m.sorAttributes.roles[0].rank = 1.5)), path: 'sorAttributes.roles[0].rank' },
  { name: 'a rank as text', body: broken((m) => (m.sorAttributes.roles[0].rank = '1')), path: 'sorAttributes.roles[0].rank' },
  { name: 'validFrom without a time', body: broken((m) => (m.sorAttributes.roles[0].validFrom = '2020-01-01')), path: 'sorAttributes.roles[0].validFrom' },
  { name: 'validFrom without an offset', body: broken((m) => (m.sorAttributes.roles[0].validFrom = '2020-01-01T00:00:00')), path: 'sorAttributes.roles[0].validFrom' },
  { name: 'validThrough on February 30', body: broken((m) => (m.sorAttributes.roles[0].validThrough = '2041-02-30T00:00:00Z')), path: 'sorAttributes.roles[0].validThrough' },
  { name: 'validThrough at 24:30', body: broken((m) => (m.sorAttributes.roles[0].validThrough = '2041-01-01T24:30:00Z')), path: 'sorAttributes.roles[0].validThrough' },
  { name: 'validFrom after validThrough', body: broken((m) => (m.sorAttributes.roles[0].validFrom = '2041-01-01T00:00:00Z')), path: 'sorAttributes.roles[0].validThrough' },
  { name: 'validFrom equal to validThrough', body: broken((m) => (m.sorAttributes.roles[0].validFrom = m.sorAttributes.roles[0].validThrough)), path: 'sorAttributes.roles[0].validThrough' },
  { name: 'a role title that is an object', body: broken((m) => (m.sorAttributes.roles[0].title = { en: 'Engineer' })), path: 'sorAttributes.roles[0].title' },
  { name: 'a roleIdentifier longer than 255', body: broken((m) => (m.sorAttributes.roles[0].roleIdentifier = 'r'.repeat(256))), path: 'sorAttributes.roles[0].roleIdentifier' },
  { name: 'a role telephone number not in E.164', body: broken((m) => (m.sorAttributes.roles[0].telephoneNumbers[0].number = '030-1234567')), path: 'sorAttributes.roles[0].telephoneNumbers[0].number' },
  { name: 'a role adhoc without tag', body: broken((m) => (m.sorAttributes.roles[0].adhoc = [{ value: 'x' }])), path: 'sorAttributes.roles[0].adhoc[0].tag' },
  { name: 'a role address locality that is a number', body: broken((m) => (m.sorAttributes.roles[0].addresses[0].locality = 3500)), path: 'sorAttributes.roles[0].addresses[0].locality' },
  { name: 'dateOfBirth with a time', body: broken((m) => (m.sorAttributes.dateOfBirth = '1990-02-28T00:00:00Z')), path: 'sorAttributes.dateOfBirth' },
  { name: 'dateOfBirth on February 29 of a common year', body: broken((m) => (m.sorAttributes.dateOfBirth = '1990-02-29')), path: 'sorAttributes.dateOfBirth' },
  { name: 'dateOfBirth in another format', body: broken((m) => (m.sorAttributes.dateOfBirth = '28/02/1990')), path: 'sorAttributes.dateOfBirth' },
  { name: 'an email without mail', body: broken((m) => (m.sorAttributes.emailAddresses = [{ type: 'official' }])), path: 'sorAttributes.emailAddresses[0].mail' },
  { name: 'an invalid email', body: broken((m) => (m.sorAttributes.emailAddresses[0].mail = 'ada at example.org')), path: 'sorAttributes.emailAddresses[0].mail' },
  { name: 'an invalid email in the older spelling', body: broken((m) => (m.sorAttributes.emailAddresses = [{ address: 'ada@' }])), path: 'sorAttributes.emailAddresses[0].address' },
  { name: 'both email spellings, different', body: broken((m) => (m.sorAttributes.emailAddresses[0].address = 'other@example.org')), path: 'sorAttributes.emailAddresses[0].address' },
  { name: 'verified as text', body: broken((m) => (m.sorAttributes.emailAddresses[0].verified = 'yes')), path: 'sorAttributes.emailAddresses[0].verified' },
  { name: 'a telephone number without +', body: broken((m) => (m.sorAttributes.telephoneNumbers[0].number = '31201234567')), path: 'sorAttributes.telephoneNumbers[0].number' },
  { name: 'a telephone number of 16 digits', body: broken((m) => (m.sorAttributes.telephoneNumbers[0].number = '+3120123456789012')), path: 'sorAttributes.telephoneNumbers[0].number' },
  { name: 'a telephone entry without number', body: broken((m) => (m.sorAttributes.telephoneNumbers = [{ type: 'mobile' }])), path: 'sorAttributes.telephoneNumbers[0].number' },
  { name: 'a relative url', body: broken((m) => (m.sorAttributes.urls[0].url = 'example.org/~ada')), path: 'sorAttributes.urls[0].url' },
  { name: 'a url entry without url', body: broken((m) => (m.sorAttributes.urls = [{ type: 'personal' }])), path: 'sorAttributes.urls[0].url' },
  { name: 'a name without given', body: broken((m) => delete m.sorAttributes.names[0].given), path: 'sorAttributes.names[0].given' },
  { name: 'a name with a null family', body: broken((m) => (m.sorAttributes.names[0].family = null)), path: 'sorAttributes.names[0].family' },
  { name: 'an identifier without identifier', body: broken((m) => (m.sorAttributes.identifiers[0] = { type: 'employeeNumber' })), path: 'sorAttributes.identifiers[0].identifier' },
  { name: 'an identifier longer than 255', body: broken((m) => (m.sorAttributes.identifiers[0].identifier = 'x'.repeat(256))), path: 'sorAttributes.identifiers[0].identifier' },
  { name: 'an adhoc without tag', body: broken((m) => (m.sorAttributes.adhoc = [{ value: 'B-77' }])), path: 'sorAttributes.adhoc[0].tag' },
  { name: 'names not a list', body: broken((m) => (m.sorAttributes.names = { given: 'Ada' })), path: 'sorAttributes.names' },
  { name: 'an address that is a list', body: broken((m) => (m.sorAttributes.addresses = [['Dam 1']])), path: 'sorAttributes.addresses[0]' },
  { name: 'a null character in a name', body: broken((m) => (m.sorAttributes.names[0].given = 'Ada\u0000')), path: 'sorAttributes.names[0].given' },
  { name: 'a null character in an unknown member', body: broken((m) => (m.sorAttributes.notes = ['ok', 'bad\u0000'])), path: 'sorAttributes.notes[1]' },
  { name: 'unknown members nested 40 deep', body: broken((m) => (m.extension = JSON.parse('['.repeat(40) + ']'.repeat(40)))), path: 'extension' + '[0]'.repeat(31) },
  { name: 'an address country that is a number', body: broken((m) => (m.sorAttributes.addresses[0].country = 31)), path: 'sorAttributes.addresses[0].country' },
];
