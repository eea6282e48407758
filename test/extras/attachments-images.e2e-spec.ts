import { deflateSync } from 'node:zlib';
import { eachDatabase } from '../../src/core/testing/harness';

/** A valid PNG of the given size (one grey row repeated), built here so the test needs no file. */
export function png(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(Buffer.concat([Buffer.from(type), data])) >>> 0);
    return Buffer.concat([len, Buffer.from(type), data, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 0, 0, 0, 0], 8);
  const rows = Buffer.concat(Array.from({ length: height }, () => Buffer.concat([Buffer.from([0]), Buffer.alloc(width, 0x80)])));
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(rows)), chunk('IEND', Buffer.alloc(0))]);
}

function crc32(b: Buffer): number {
  let c = ~0;
  for (const byte of b) {
    c ^= byte;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c;
}

/** A GIF header of the given size (the type and size are read from the first bytes). */
const gif = (w: number, h: number) => Buffer.concat([Buffer.from('GIF89a'), Buffer.from([w & 255, w >> 8, h & 255, h >> 8]), Buffer.from([0, 0, 0, 0x3b])]);

/**
 * Image attachments as Nautobot 2.4 has them, beyond the contract: a multipart upload (the keys
 * `content_type`, `object_id`, `name`, `image`), the size read from the image, the type from its
 * bytes whatever the client says, the served file and its headers, permission scoping, size limit,
 * and the attachment going with its object.
 */
eachDatabase('image attachments', (t) => {
  const post = async (path: string, body: object) => (await t().post(path, body).expect(201)).body;
  let location: { id: string };
  let other: { id: string };
  beforeAll(async () => {
    const type = await post('/api/dcim/location-types/', { name: 'Attachment site' });
    location = await post('/api/dcim/locations/', { name: 'Attachment loc', location_type: type.id, status: 'Active' });
    other = await post('/api/dcim/locations/', { name: 'Attachment other', location_type: type.id, status: 'Active' });
  });
  const upload = (objectId: string, image: Buffer, filename: string, name = '', token?: string, type = 'image/png') =>
    t().post('/api/extras/image-attachments/', undefined, token).field('content_type', 'dcim.location').field('object_id', objectId).field('name', name).attach('image', image, { filename, contentType: type });

  it('takes a multipart upload, reads its size, and serves it with its type', async () => {
    const image = png(7, 3);
    const res = await upload(location.id, image, 'rack front.png', 'Front').expect(201);
    expect(res.body).toMatchObject({
      content_type: 'dcim.location',
      object_id: location.id,
      parent: { id: location.id, object_type: 'dcim.location' },
      name: 'Front',
      display: 'Front',
      image_width: 7,
      image_height: 3,
      image: expect.stringMatching(new RegExp(`/api/extras/image-attachments/${res.body.id}/image/$`)),
    });
    const served = await t().get(new URL(res.body.image).pathname).buffer(true).parse((r, cb) => {
      const parts: Buffer[] = [];
      r.on('data', (c: Buffer) => parts.push(c));
      r.on('end', () => cb(null, Buffer.concat(parts)));
    }).expect(200);
    expect(served.headers['content-type']).toBe('image/png');
    expect(served.headers['content-disposition']).toBe('inline; filename="rack_front.png"');
    expect(served.headers['x-content-type-options']).toBe('nosniff');
    expect(Buffer.compare(served.body as Buffer, image)).toBe(0);
    // Filters of the reference: content type, object id, name.
    const list = (await t().get(`/api/extras/image-attachments/?content_type=dcim.location&object_id=${location.id}&name=Front`).expect(200)).body;
    expect(list.results.map((r: { id: string }) => r.id)).toEqual([res.body.id]);
    // A PATCH without a file keeps it; one with a new file replaces it and its size.
    await t().patch(`/api/extras/image-attachments/${res.body.id}/`, { name: 'Renamed' }).expect(200);
    const replaced = await t().patch(`/api/extras/image-attachments/${res.body.id}/`).attach('image', gif(12, 9), { filename: 'new.gif', contentType: 'image/gif' }).expect(200);
    expect(replaced.body).toMatchObject({ name: 'Renamed', image_width: 12, image_height: 9, display: 'Renamed' });
    const again = await t().get(`/api/extras/image-attachments/${res.body.id}/image/`).expect(200);
    expect(again.headers['content-type']).toBe('image/gif');
  });

  it('reads the type from the bytes and refuses what is not an image, too big, or for another model', async () => {
    // A GIF sent as "image/png" named .png is a GIF.
    const lying = await upload(location.id, gif(5, 4), 'x.png', '', undefined, 'image/png').expect(201);
    expect((await t().get(`/api/extras/image-attachments/${lying.body.id}/image/`).expect(200)).headers['content-type']).toBe('image/gif');
    const before = (await t().get('/api/extras/image-attachments/?limit=1').expect(200)).body.count;
    const html = Buffer.from('<html><script>alert(1)</script></html>');
    expect((await upload(location.id, html, 'evil.png').expect(400)).body).toEqual({ image: ['Upload a valid image. The file you uploaded was either not an image or a corrupted image.'] });
    expect((await upload(location.id, Buffer.alloc(0), 'empty.png').expect(400)).body).toEqual({ image: ['The submitted file is empty.'] });
    // FILE_UPLOAD_MAX_SIZE is 2000 here.
    const big = Buffer.concat([gif(5, 5), Buffer.alloc(2001)]);
    expect((await upload(location.id, big, 'big.gif').expect(400)).body).toEqual({ image: [`Ensure this file has at most 2000 bytes (it has ${big.length}).`] });
    // JSON carries no file (a string is not one).
    expect((await t().post('/api/extras/image-attachments/', { content_type: 'dcim.location', object_id: location.id, image: 'x.png' }).expect(400)).body).toEqual({
      image: ['The submitted data was not a file. Check the encoding type on the form.'],
    });
    const tenant = await post('/api/tenancy/tenants/', { name: 'Not attachable' });
    const wrongType = await t().post('/api/extras/image-attachments/').field('content_type', 'tenancy.tenant').field('object_id', tenant.id).attach('image', png(1, 1), 'a.png').expect(400);
    expect(wrongType.body).toEqual({ content_type: ['Invalid content type: tenancy.tenant'] });
    expect((await upload('not-a-uuid', png(1, 1), 'a.png').expect(400)).body).toEqual({ object_id: ['Must be a valid UUID.'] });
    expect((await t().post('/api/extras/image-attachments/').set('Content-Type', 'multipart/form-data').send('garbage').expect(400)).body.detail).toMatch(/^Multipart form parse error - /);
    expect((await t().get('/api/extras/image-attachments/?limit=1').expect(200)).body.count).toBe(before);
  });

  it('is served only to those who may view the attachment, and goes with its object', async () => {
    const shown = (await upload(location.id, png(2, 2), 'shown.png', 'Shown').expect(201)).body;
    const hidden = (await upload(other.id, png(2, 2), 'hidden.png', 'Hidden').expect(201)).body;
    const viewer = await t().userWith('attachment-viewer', [{ types: ['extras.imageattachment'], actions: ['view'], constraints: { name: 'Shown' } }]);
    await t().get(`/api/extras/image-attachments/${shown.id}/image/`, viewer).expect(200);
    await t().get(`/api/extras/image-attachments/${hidden.id}/image/`, viewer).expect(404);
    const nobody = await t().userWith('attachment-nobody', [{ types: ['dcim.location'], actions: ['view'] }]);
    await t().get(`/api/extras/image-attachments/${shown.id}/image/`, nobody).expect(403);
    await t().get(`/api/extras/image-attachments/${shown.id}/image/`, null).expect(403);
    // The attachment (and its bytes) go with the location.
    const type = await post('/api/dcim/location-types/', { name: 'Doomed site' });
    const doomed = await post('/api/dcim/locations/', { name: 'Doomed', location_type: type.id, status: 'Active' });
    const gone = (await upload(doomed.id, png(1, 1), 'gone.png').expect(201)).body;
    await t().del(`/api/dcim/locations/${doomed.id}/`).expect(204);
    await t().get(`/api/extras/image-attachments/${gone.id}/`).expect(404);
    await t().get(`/api/extras/image-attachments/${gone.id}/image/`).expect(404);
  });

  it('takes a data URI in JSON (bulk creates, CSV)', async () => {
    const uri = `data:image/png;base64,${png(4, 6).toString('base64')}`;
    const made = await post('/api/extras/image-attachments/', [{ content_type: 'dcim.location', object_id: location.id, name: 'From JSON', image: uri }]);
    expect(made[0]).toMatchObject({ name: 'From JSON', image_width: 4, image_height: 6 });
  });
}, { env: { FILE_UPLOAD_MAX_SIZE: '2000' } });

