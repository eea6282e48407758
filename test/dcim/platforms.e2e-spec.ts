import { eachDatabase } from '../../src/core/testing/harness';

/**
 * Manufacturers and platforms as Nautobot 2.4 serves them: a platform's network driver shows the
 * driver name of each automation library, a manufacturer counts its platforms and cannot be
 * deleted while one names it, and the filters the reference offers work.
 */
eachDatabase('manufacturers and platforms', (t) => {
  const post = async (path: string, body: object) => (await t().post(path, body).expect(201)).body;

  it('maps a platform network driver to each library, and an unknown one to nothing', async () => {
    const ios = await post('/api/dcim/platforms/', { name: 'IOS', network_driver: 'cisco_ios' });
    expect(ios.network_driver_mappings).toMatchObject({ ansible: 'cisco.ios.ios', napalm: 'ios', netmiko: 'cisco_ios', ntc_templates: 'cisco_ios', scrapli: 'cisco_iosxe' });
    expect(ios).toMatchObject({ manufacturer: null, napalm_driver: '', napalm_args: null, description: '', device_count: 0, virtual_machine_count: 0 });
    const other = await post('/api/dcim/platforms/', { name: 'Homegrown', network_driver: 'homegrown_os' });
    expect(other.network_driver_mappings).toEqual({});
    const changed = await t().patch(`/api/dcim/platforms/${other.id}/`, { network_driver: 'arista_eos' }).expect(200);
    expect(changed.body.network_driver_mappings.ansible).toBe('arista.eos.eos');
    await t().patch(`/api/dcim/platforms/${other.id}/`, { network_driver_mappings: { ansible: 'x' } }).expect(200);
    expect((await t().get(`/api/dcim/platforms/${other.id}/`).expect(200)).body.network_driver_mappings.ansible).toBe('arista.eos.eos');
  });

  it('counts a manufacturer platforms, filters both ways, and protects a manufacturer in use', async () => {
    const juniper = await post('/api/dcim/manufacturers/', { name: 'Juniper', description: 'routers' });
    const dell = await post('/api/dcim/manufacturers/', { name: 'Dell' });
    const junos = await post('/api/dcim/platforms/', { name: 'Junos', manufacturer: juniper.id, network_driver: 'juniper_junos', napalm_driver: 'junos', napalm_args: { port: 830 } });
    const detail = (await t().get(`/api/dcim/manufacturers/${juniper.id}/`).expect(200)).body;
    expect(detail).toMatchObject({ name: 'Juniper', display: 'Juniper', platform_count: 1, device_type_count: 0, inventory_item_count: 0, cloud_account_count: 0 });
    const names = async (path: string) => (await t().get(path).expect(200)).body.results.map((o: { name: string }) => o.name).sort();
    expect(await names('/api/dcim/manufacturers/?has_platforms=true')).toEqual(['Juniper']);
    expect(await names('/api/dcim/manufacturers/?has_platforms=false&name=Dell&name=Juniper')).toEqual(['Dell']);
    expect(await names(`/api/dcim/manufacturers/?platforms=${junos.id}`)).toEqual(['Juniper']);
    expect(await names('/api/dcim/platforms/?manufacturer=Juniper')).toEqual(['Junos']);
    expect(await names(`/api/dcim/platforms/?manufacturer=${juniper.id}&network_driver=juniper_junos&napalm_driver=junos`)).toEqual(['Junos']);
    expect((await t().get('/api/dcim/platforms/?manufacturer=Nobody').expect(400)).body).toEqual({ manufacturer: ['Select a valid choice. Nobody is not one of the available choices.'] });
    expect(await names('/api/dcim/manufacturers/?q=jun')).toEqual(['Juniper']);
    const refused = await t().del(`/api/dcim/manufacturers/${juniper.id}/`).expect(409);
    expect(refused.body.detail).toBe(`Unable to delete object. 1 dependent objects were found: Junos (${junos.id})`);
    await t().del(`/api/dcim/platforms/${junos.id}/`).expect(204);
    await t().del(`/api/dcim/manufacturers/${juniper.id}/`).expect(204);
    await t().del(`/api/dcim/manufacturers/${dell.id}/`).expect(204);
  });

  it('keeps names unique and within 255 characters, as the reference does', async () => {
    await post('/api/dcim/manufacturers/', { name: 'Arista' });
    expect((await t().post('/api/dcim/manufacturers/', { name: 'Arista' }).expect(400)).body).toEqual({ name: ['manufacturer with this Name already exists.'] });
    expect((await t().post('/api/dcim/platforms/', { name: 'y'.repeat(256) }).expect(400)).body).toEqual({ name: ['Ensure this field has no more than 255 characters.'] });
  });
});
